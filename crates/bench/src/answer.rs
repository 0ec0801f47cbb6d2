//! The WG agent benchmark's tolerant answer match (`benchmark-semantics.md` §2.7):
//! key names, nesting and extra fields are ignored; `null` leaves are dropped; lists match
//! when the smaller injects into the larger (pagination), but an empty list never
//! satisfies a non-empty expected one; scalars compare by type (5 ≠ "5"); ISO dates and
//! date-times are normalised to one instant.

use serde_json::Value;

/// A value in canonical form.
#[derive(Debug, Clone, PartialEq)]
enum Canon {
    Leaf(String),
    /// Scalar leaves reachable without crossing a list, and the lists below ("slots").
    Record {
        leaves: Vec<String>,
        slots: Vec<Vec<Canon>>,
    },
    List(Vec<Canon>),
}

/// Seconds since the epoch of an ISO date (`2024-01-31`) or date-time
/// (`2024-01-31T10:00:00Z`, fractions and `±HH:MM` offsets accepted).
fn iso_instant(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|x| x.parse::<i64>().ok());
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let (yy, mm) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    if b.len() == 10 {
        return Some(days * 86_400);
    }
    if !(b[10] == b'T' || b[10] == b' ') || b.len() < 19 {
        return None;
    }
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(r) = rest.strip_prefix('.') {
        rest = r.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        o if o.len() == 6 && (o.starts_with('+') || o.starts_with('-')) => {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            sign * (o[1..3].parse::<i64>().ok()? * 3600 + o[4..6].parse::<i64>().ok()? * 60)
        }
        _ => return None,
    };
    Some(days * 86_400 + h * 3600 + mi * 60 + se - offset)
}

fn leaf_key(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(format!("b:{b}")),
        Value::Number(n) => Some(format!("n:{}", n.as_f64().unwrap_or(0.0))),
        Value::String(s) => Some(match iso_instant(s) {
            Some(t) => format!("t:{t}"),
            None => format!("s:{s}"),
        }),
        _ => None,
    }
}

fn canon(v: &Value) -> Option<Canon> {
    match v {
        Value::Array(a) => Some(Canon::List(a.iter().filter_map(canon).collect())),
        Value::Object(_) => {
            let mut leaves = Vec::new();
            let mut slots = Vec::new();
            collect(v, &mut leaves, &mut slots);
            leaves.sort();
            Some(Canon::Record { leaves, slots })
        }
        other => leaf_key(other).map(Canon::Leaf),
    }
}

fn collect(v: &Value, leaves: &mut Vec<String>, slots: &mut Vec<Vec<Canon>>) {
    match v {
        Value::Object(m) => m.values().for_each(|x| collect(x, leaves, slots)),
        Value::Array(a) => slots.push(a.iter().filter_map(canon).collect()),
        other => leaves.extend(leaf_key(other)),
    }
}

/// Multiset inclusion of sorted lists.
fn sub_multiset(small: &[String], big: &[String]) -> bool {
    let mut j = 0;
    for s in small {
        while j < big.len() && big[j] < *s {
            j += 1;
        }
        if j >= big.len() || big[j] != *s {
            return false;
        }
        j += 1;
    }
    true
}

/// Does every left item map to a distinct right item with `ok(l, r)`? (Kuhn's matching.)
fn injects(left: usize, right: usize, ok: &dyn Fn(usize, usize) -> bool) -> bool {
    if left > right {
        return false;
    }
    let adj: Vec<Vec<usize>> = (0..left)
        .map(|i| (0..right).filter(|&j| ok(i, j)).collect())
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; right];
    fn try_assign(
        i: usize,
        adj: &[Vec<usize>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &j in &adj[i] {
            if seen[j] {
                continue;
            }
            seen[j] = true;
            if owner[j].is_none_or(|o| try_assign(o, adj, seen, owner)) {
                owner[j] = Some(i);
                return true;
            }
        }
        false
    }
    (0..left).all(|i| try_assign(i, &adj, &mut vec![false; right], &mut owner))
}

fn lists_match(e: &[Canon], a: &[Canon]) -> bool {
    if e.is_empty() {
        return a.is_empty();
    }
    if a.is_empty() {
        return false;
    }
    if e.len() <= a.len() {
        injects(e.len(), a.len(), &|i, j| matches(&e[i], &a[j]))
    } else {
        injects(a.len(), e.len(), &|j, i| matches(&e[i], &a[j]))
    }
}

/// A record with no leaves and one slot, as that list.
fn as_list(c: &Canon) -> Option<&[Canon]> {
    match c {
        Canon::List(l) => Some(l),
        Canon::Record { leaves, slots } if leaves.is_empty() && slots.len() == 1 => Some(&slots[0]),
        _ => None,
    }
}

fn matches(e: &Canon, a: &Canon) -> bool {
    match (e, a) {
        (Canon::Leaf(x), Canon::Leaf(y)) => x == y,
        (Canon::Leaf(x), Canon::Record { leaves, .. }) => leaves.contains(x),
        (
            Canon::Record {
                leaves: el,
                slots: es,
            },
            Canon::Record {
                leaves: al,
                slots: as_,
            },
        ) => {
            sub_multiset(el, al)
                && injects(es.len(), as_.len(), &|i, j| lists_match(&es[i], &as_[j]))
        }
        _ => match (as_list(e), as_list(a)) {
            (Some(x), Some(y)) => lists_match(x, y),
            _ => false,
        },
    }
}

/// Is `expected` empty (null or `{}`): such a row is not satisfiable.
pub fn is_empty_expected(expected: &Value) -> bool {
    matches!(expected, Value::Null) || expected.as_object().is_some_and(|o| o.is_empty())
}

/// Does `actual` tolerantly match `expected`?
pub fn answer_matches(expected: &Value, actual: &Value) -> bool {
    if is_empty_expected(expected) {
        return false;
    }
    match (canon(expected), canon(actual)) {
        (Some(e), Some(a)) => matches(&e, &a),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_nesting_extras_and_nulls_are_ignored() {
        assert!(answer_matches(
            &json!({"name": "Ada", "age": 36}),
            &json!({"person": {"fullName": "Ada", "years": 36, "x": null, "extra": true}})
        ));
        assert!(
            !answer_matches(&json!({"n": 5}), &json!({"n": "5"})),
            "typed scalars"
        );
        assert!(answer_matches(
            &json!({"when": "2024-01-31"}),
            &json!({"t": "2024-01-31T00:00:00Z"})
        ));
        assert!(answer_matches(
            &json!({"when": "2024-01-31T12:00:00+02:00"}),
            &json!({"t": "2024-01-31T10:00:00.000Z"})
        ));
        assert!(
            !answer_matches(&json!(null), &json!(null)),
            "empty expected never counts"
        );
        assert!(!answer_matches(&json!({}), &json!({})));
    }

    #[test]
    fn lists_are_pagination_tolerant_but_never_empty_for_non_empty() {
        let e = json!({"items": [{"t": "a"}, {"t": "b"}]});
        assert!(answer_matches(
            &e,
            &json!({"items": [{"t": "b"}, {"t": "a"}, {"t": "c"}]})
        ));
        assert!(
            answer_matches(&e, &json!({"items": [{"t": "a"}]})),
            "the smaller injects into the larger"
        );
        assert!(!answer_matches(&e, &json!({"items": []})));
        assert!(!answer_matches(&e, &json!({"items": [{"t": "z"}]})));
        assert!(answer_matches(
            &json!({"commits": []}),
            &json!({"commits": []})
        ));
        assert!(!answer_matches(
            &json!({"commits": []}),
            &json!({"commits": [{"m": "x"}]})
        ));
        // A wrapper around one list matches a bare list.
        assert!(answer_matches(
            &json!({"teams": [{"n": "A"}]}),
            &json!([{"name": "A"}])
        ));
        // Each expected item needs its own actual item.
        assert!(!answer_matches(
            &json!([{"t": "a"}, {"t": "a"}, {"t": "b"}]),
            &json!([{"t": "a"}, {"t": "b"}, {"t": "c"}, {"t": "d"}])
        ));
    }
}
