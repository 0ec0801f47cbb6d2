//! HybridBackend: RRF and weighted fusion over scripted backends.

use std::sync::{Arc, Mutex};

use gqlnav_embed::HybridBackend;
use gqlnav_search::{top_k, Query, Scored, SearchBackend, SearchContext, SearchError};

/// Returns a fixed ranked list (doc, score) and records the depth it was asked for.
struct Scripted {
    name: &'static str,
    list: Vec<(usize, f32)>,
    depths: Arc<Mutex<Vec<usize>>>,
}

impl SearchBackend for Scripted {
    fn name(&self) -> String {
        self.name.to_string()
    }
    fn index(&mut self, _: &SearchContext) -> Result<(), SearchError> {
        Ok(())
    }
    fn search(&self, _: &Query, k: usize) -> Result<Vec<Scored>, SearchError> {
        self.depths.lock().unwrap().push(k);
        let v = self
            .list
            .iter()
            .map(|&(doc, score)| Scored::new(doc, score))
            .collect();
        Ok(top_k(v, k))
    }
}

fn scripted(
    name: &'static str,
    list: &[(usize, f32)],
) -> (Box<dyn SearchBackend>, Arc<Mutex<Vec<usize>>>) {
    let depths = Arc::new(Mutex::new(Vec::new()));
    (
        Box::new(Scripted {
            name,
            list: list.to_vec(),
            depths: depths.clone(),
        }),
        depths,
    )
}

#[test]
fn rrf_k60_and_depth() {
    let (a, da) = scripted("vector(m)", &[(10, 0.9), (11, 0.8), (12, 0.7)]);
    let (b, db) = scripted("bm25(x)", &[(12, 9.0), (13, 5.0), (10, 1.0)]);
    let h = HybridBackend::rrf(a, b);
    assert_eq!(h.name(), "hybrid-rrf(vector(m)+bm25(x))");
    let hits = h.search(&Query::new("q"), 3).unwrap();
    assert_eq!(*da.lock().unwrap(), vec![200]);
    assert_eq!(*db.lock().unwrap(), vec![200]);
    let rrf = |r: f32| 1.0 / (60.0 + r);
    // 10: ranks 1 and 3; 12: ranks 3 and 1 -> equal, tie by doc order; 11: rank 2; 13: rank 2.
    assert_eq!(
        hits.iter().map(|h| h.doc).collect::<Vec<_>>(),
        vec![10, 12, 11]
    );
    assert!((hits[0].score - (rrf(1.0) + rrf(3.0))).abs() < 1e-7);
    assert!((hits[2].score - rrf(2.0)).abs() < 1e-7);
    assert_eq!(hits[0].explain[0].0, "vector(m)");
    assert!((hits[0].explain[0].1 - rrf(1.0)).abs() < 1e-7);
    assert!((hits[0].explain[1].1 - rrf(3.0)).abs() < 1e-7);
    // Asking for more than 200 searches each side deeper.
    let _ = h.search(&Query::new("q"), 500).unwrap();
    assert_eq!(da.lock().unwrap().last(), Some(&500));
}

#[test]
fn weighted_min_max_fusion() {
    let (a, _) = scripted("vector(m)", &[(1, 0.9), (2, 0.5), (3, 0.1)]);
    let (b, _) = scripted("bm25(x)", &[(3, 20.0), (4, 10.0), (1, 0.0)]);
    let h = HybridBackend::weighted(a, b, 0.7).unwrap();
    assert_eq!(h.name(), "hybrid-w0.70(vector(m)+bm25(x))");
    let hits = h.search(&Query::new("q"), 10).unwrap();
    let score = |d: usize| hits.iter().find(|s| s.doc == d).unwrap().score;
    assert!((score(1) - 0.7).abs() < 1e-6); // a: 1.0, b: 0.0
    assert!((score(2) - 0.7 * 0.5).abs() < 1e-6); // a: 0.5, b: missing
    assert!((score(3) - 0.3).abs() < 1e-6); // a: 0.0, b: 1.0
    assert!((score(4) - 0.3 * 0.5).abs() < 1e-6); // b only: 0.5
    assert_eq!(
        hits.iter().map(|h| h.doc).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    // Equal scores on a side normalise to 1.
    let (a, _) = scripted("a", &[(5, 2.0), (6, 2.0)]);
    let (b, _) = scripted("b", &[]);
    let hits = HybridBackend::weighted(a, b, 0.5)
        .unwrap()
        .search(&Query::new("q"), 10)
        .unwrap();
    assert_eq!(
        hits.iter().map(|h| (h.doc, h.score)).collect::<Vec<_>>(),
        vec![(5, 0.5), (6, 0.5)]
    );
}

#[test]
fn weight_outside_unit_interval_is_rejected() {
    for w in [-0.1, 1.5, f32::NAN] {
        let (a, _) = scripted("a", &[]);
        let (b, _) = scripted("b", &[]);
        assert!(HybridBackend::weighted(a, b, w).is_err(), "{w}");
    }
}
