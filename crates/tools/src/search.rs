//! `search_schema`: a ranked page of coordinates with paths to the root and a cursor, or,
//! with a token budget, a slice of the schema cut to it.

use gqlnav_corpus::Entry;
use gqlnav_search::{page_folded, Fold, PageRequest, Query, Slot};
use serde_json::json;

use crate::around::{entry_points, link_fields, return_fields};
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::toolbox::{Generation, Toolbox};
use crate::util::{make_cursor, read_cursor};

fn first_sentence(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = s.find(". ").map(|i| i + 1).unwrap_or(s.len()).min(s.len());
    let mut out = s[..end].to_string();
    if out.len() > max {
        let mut cut = max;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// `Type.field(req: T!, opt, …): Ret — first sentence` for a field entry.
pub fn short_definition(e: &Entry) -> String {
    let mut sig = e.coordinate.clone();
    if !e.args.is_empty() {
        let mut parts: Vec<String> = Vec::new();
        for a in e.args.iter().filter(|a| a.required) {
            parts.push(format!("{}: {}", a.name, a.ty));
        }
        let optional: Vec<&str> = e
            .args
            .iter()
            .filter(|a| !a.required)
            .map(|a| a.name.as_str())
            .collect();
        let shown = optional.len().min(6);
        parts.extend(optional[..shown].iter().map(|s| format!("{s}:")));
        if optional.len() > shown {
            parts.push("…".into());
        }
        sig.push_str(&format!("({})", parts.join(", ")));
    }
    if !e.return_type.is_empty() {
        sig.push_str(&format!(": {}", e.return_type));
    }
    if e.deprecated.is_some() {
        sig.push_str(" @deprecated");
    }
    let d = first_sentence(&e.description, 140);
    if d.is_empty() {
        sig
    } else {
        format!("{sig} — {d}")
    }
}

/// `search_schema` input.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchRequest {
    /// What you need, in plain words: one intent per call, e.g. "who reviewed a pull request".
    pub query: String,
    /// Results per page: [`DEFAULT_SEARCH_LIMIT`] by default, at most
    /// [`ToolsConfig::max_limit`](crate::ToolsConfig::max_limit) (the tool catalog states
    /// both in the schema).
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Optional token budget (o200k_base) for the whole answer: the answer is then a slice
    /// of the schema (valid SDL: paths from the Query root, arguments, the likely fields)
    /// cut to it; [`FIRST_LOOK_BUDGET_TOKENS`] is a good first look at a whole task.
    /// Default: none (a ranked page).
    #[serde(default, alias = "budget_tokens")]
    pub budget_tokens: Option<u32>,
    /// Cursor from a previous call's "More results" line, to get the next page. Default: none (first page).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only the coordinates one service of a federated supergraph resolves (a
    /// `join__Graph` value or its name, e.g. "products"; pass it again with a cursor).
    /// Default: every service.
    #[serde(default)]
    pub service: Option<String>,
}

/// Results per `search_schema` page when the call does not say.
pub const DEFAULT_SEARCH_LIMIT: u32 = 10;

/// The words that lead a search page's first line, before the operation that reads its
/// top hits (an agent that hands a model another operation replaces what follows them).
pub const EXAMPLE_LEAD: &str = "Reads the top hits (execute with its variables): ";

/// A token budget that gives a good first look at a whole task as one slice (what the
/// tool's description suggests).
pub const FIRST_LOOK_BUDGET_TOKENS: u32 = 4000;

fn default_limit() -> u32 {
    DEFAULT_SEARCH_LIMIT
}

impl SearchRequest {
    /// A first-page request for `query`.
    pub fn new(query: impl Into<String>) -> Self {
        SearchRequest {
            query: query.into(),
            limit: DEFAULT_SEARCH_LIMIT,
            budget_tokens: None,
            cursor: None,
            service: None,
        }
    }
}

/// One search result as every surface exposes it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchItem {
    /// 1-based position in the whole ranking (positions folded into an earlier item are
    /// skipped, so numbers can jump).
    pub rank: usize,
    /// Schema coordinate.
    pub coordinate: String,
    /// Entry kind (`field`, …).
    pub kind: String,
    /// Score in [0, 1], relative to the best hit of the query.
    pub score: f32,
    /// Short signature and first sentence of the description.
    pub definition: String,
    /// Root-first paths of field coordinates.
    pub paths_to_root: Vec<Vec<String>>,
    /// Cursor pointing after this result.
    pub cursor: String,
    /// For a field of an interface, or one returning an interface or a union: which
    /// object types are behind it (`on Interface: implemented by A, B`), so an agent can
    /// write the fragment without another call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<String>,
    /// The same field on other types of its interface family, ranked lower and folded
    /// into this item (`Bot.login`, `Mannequin.login` under `User.login`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_field_on: Vec<String>,
    /// More fields of this item's owner type, ranked lower and folded into it once the
    /// page holds [`ToolsConfig::per_type`](crate::ToolsConfig::per_type) results of
    /// that type (`CustomerStatus.type`, `CustomerStatus.color` under
    /// `CustomerStatus.description`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_on_type: Vec<String>,
}

/// Ranked positions read per page item: folding near-duplicates uses positions up, so a
/// page ranks this many times its limit (plus one, to tell whether more exist).
const FOLD_DEPTH: usize = 4;

/// Fields folded by type that a result's `more:` line names (the rest are counted; the
/// structured result lists them all): a bound for a hub type whose every field matches
/// a word. The names are cheap and carry much of a page's reach: naming at most 8 / 24
/// lowered the tools bench's page policy from 41.1% to 33.2% / 39.2% of dev questions
/// shown in one call (measured 2026-12-03, docs/archive/history.md).
const MORE_NAMED: usize = 64;

/// Deepest ranking a page asks for when folding leaves it short.
const MAX_RANK_DEPTH: usize = 4096;

/// Most member names listed per hit.
const MAX_MEMBERS_SHOWN: usize = 5;

/// The object types behind an abstract owner or return type of an entry, as one line.
fn members_note(graph: &gqlnav_schema::SchemaGraph, e: &gqlnav_corpus::Entry) -> Option<String> {
    let list = |name: &str| {
        let p = graph.possible_types(name);
        let more = p.len().saturating_sub(MAX_MEMBERS_SHOWN);
        let mut s = p[..p.len().min(MAX_MEMBERS_SHOWN)].join(", ");
        if more > 0 {
            s.push_str(&format!(" +{more} more"));
        }
        (!p.is_empty()).then_some(s)
    };
    let is_abstract = |name: &str| {
        matches!(
            graph.schema.types.get(name),
            Some(apollo_compiler::schema::ExtendedType::Interface(_))
                | Some(apollo_compiler::schema::ExtendedType::Union(_))
        )
    };
    let mut parts = Vec::new();
    if is_abstract(&e.owner) {
        if let Some(l) = list(&e.owner) {
            parts.push(format!("{} is implemented by {l}", e.owner));
        }
    }
    if e.named_type != e.owner && is_abstract(&e.named_type) {
        if let Some(l) = list(&e.named_type) {
            parts.push(format!(
                "returns {} (one of {l}: select with `... on Type`)",
                e.named_type
            ));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Largest accepted query text, in bytes.
pub const MAX_QUERY_BYTES: usize = 1024;

/// A page of search items.
#[derive(Debug, Clone)]
pub struct SearchPage {
    /// The items, best first.
    pub items: Vec<SearchItem>,
    /// A next page exists.
    pub more: bool,
    /// The ranker's raw score of the query's best hit (what items' scores are relative
    /// to); 0 when nothing ranked.
    pub best: f32,
}

/// The corpus positions of the fields one supergraph service resolves, or why `asked`
/// names none.
fn service_filter(
    generation: &Generation,
    asked: &str,
) -> Result<std::collections::HashSet<usize>, String> {
    let schema = &generation.graph.schema;
    let all = gqlnav_schema::services(schema);
    if all.is_empty() {
        return Err("`service` filters a federated supergraph's search, and this schema declares no services (no `join__Graph` enum): leave `service` out".into());
    }
    let Some(s) = gqlnav_schema::find_service(&all, asked) else {
        return Err(format!(
            "no service `{asked}`; the services are: {}",
            all.iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    Ok(generation
        .ctx
        .corpus
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            gqlnav_schema::field_services(schema, &e.owner, &e.name).contains(&s.value)
        })
        .map(|(i, _)| i)
        .collect())
}

/// Check a query text: not empty, not too long.
pub fn check_query(query: &str) -> Result<(), ToolError> {
    if query.trim().is_empty() {
        return Err(ToolError::EmptyQuery);
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(ToolError::QueryTooLong {
            bytes: query.len(),
            max: MAX_QUERY_BYTES,
        });
    }
    Ok(())
}

/// The entry kind as its serde name (`field`, `enum_value`, …).
fn kind_name(k: gqlnav_corpus::EntryKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The text block of one item in a `search_schema` answer.
/// One result as `search_schema` writes it: rank, coordinate, kind, score, definition,
/// its first path from the root, and what was folded into it.
pub fn item_block(it: &SearchItem) -> String {
    let mut block = format!(
        "{}. {} ({}, score {:.2})\n   {}",
        it.rank, it.coordinate, it.kind, it.score, it.definition
    );
    match it.paths_to_root.first() {
        Some(p) => block.push_str(&format!("\n   path: {}", p.join(" > "))),
        None => block.push_str("\n   path: (none from Query)"),
    }
    if let Some(m) = &it.members {
        block.push_str(&format!("\n   members: {m}"));
    }
    if !it.same_field_on.is_empty() {
        block.push_str(&format!(
            "\n   same field on: {}",
            it.same_field_on.join(", ")
        ));
    }
    if !it.more_on_type.is_empty() {
        let shown = &it.more_on_type[..it.more_on_type.len().min(MORE_NAMED)];
        block.push_str(&format!("\n   more: {}", shown.join(", ")));
        if it.more_on_type.len() > shown.len() {
            block.push_str(&format!(" +{}", it.more_on_type.len() - shown.len()));
        }
    }
    block
}

/// A question's distinct words as [`Toolbox::name_coverage`] compares them with a
/// schema's names (read once for a search over many graphs).
pub fn name_terms(query: &str) -> Vec<String> {
    let mut terms = gqlnav_search::Analyzer::Identifier.query_terms(query);
    terms.sort();
    terms.dedup();
    terms
}

impl Toolbox {
    /// Rank and page: the ranker's hits turned into items by the search stage's
    /// [`SearchContext::hit`](gqlnav_search::SearchContext::hit) and cut by its
    /// [`page`] rule. Shared by `search_schema` and the GraphQL endpoint's `__search`
    /// (a budgeted `search_schema` answers with a slice instead, so pages carry no budget).
    pub fn ranked_page(
        &self,
        generation: &Generation,
        query: &str,
        req: &PageRequest,
        paths: usize,
    ) -> Result<SearchPage, ToolError> {
        self.ranked_page_where(generation, query, req, paths, None)
    }

    /// [`ranked_page`](Self::ranked_page) over the hits `keep` accepts (by corpus
    /// position): the supergraph service filter.
    pub fn ranked_page_where(
        &self,
        generation: &Generation,
        query: &str,
        req: &PageRequest,
        paths: usize,
        keep: Option<&dyn Fn(usize) -> bool>,
    ) -> Result<SearchPage, ToolError> {
        check_query(query)?;
        // Folding uses ranked positions up (a run of one type's fields folds into one
        // result), so a short page, or a full one that used up every ranked position, is
        // ranked again deeper until it is full and knows whether more exist, or the
        // ranking ends.
        let mut depth = req.offset + FOLD_DEPTH * req.limit + 1;
        let mut best: f32;
        let mut p = loop {
            let mut scored = generation
                .backend
                .search(&Query::new(query), depth)
                .map_err(|e| ToolError::Search(e.to_string()))?;
            let ranked = scored.len();
            best = scored.first().map_or(0.0, |s| s.score);
            if let Some(keep) = keep {
                scored.retain(|s| keep(s.doc));
            }
            let p = self.fold_page(generation, &scored, req, paths);
            // A full page that folded positions up to the end of what was ranked cannot
            // tell whether more exist: rank deeper (the ranking may go on).
            let ranked_out = ranked < depth || depth >= MAX_RANK_DEPTH;
            if ranked_out || (p.items.len() >= req.limit && p.more) {
                break p;
            }
            depth = (depth * 4).min(MAX_RANK_DEPTH);
        };
        for (item, &resume) in p.items.iter_mut().zip(&p.resume) {
            item.cursor = make_cursor(resume, query, generation.number);
        }
        Ok(SearchPage {
            items: p.items,
            more: p.more,
            best,
        })
    }

    /// The share of a question's words ([`name_terms`]) that are words of this schema's
    /// names (coordinates, types, argument names): a graph that names nothing the
    /// question says is not where it is answered. An upper bound of the merged scores
    /// [`Toolbox::graph_relevance`] feeds, so a search over many graphs can skip a graph
    /// whose share cannot reach its best hits.
    pub fn name_coverage(&self, terms: &[String]) -> f32 {
        if terms.is_empty() {
            return 0.0;
        }
        let generation = self.generation();
        let names = generation.name_words();
        terms.iter().filter(|t| names.contains(*t)).count() as f32 / terms.len() as f32
    }

    /// What a search over many graphs compares before it builds any result: the `k`
    /// best hits' scores relative to this graph's best, each with its raw score (which
    /// breaks ties). A ranker's raw scores do not compare across schemas: a word rare in
    /// one schema weighs more there (docs/serve.md, "Many graphs").
    pub fn graph_relevance(&self, query: &str, k: usize) -> Result<Vec<(f32, f32)>, ToolError> {
        check_query(query)?;
        let generation = self.generation();
        let scored = generation
            .backend
            .search(&Query::new(query), k.max(1))
            .map_err(|e| ToolError::Search(e.to_string()))?;
        let best = scored.first().map_or(0.0, |s| s.score);
        Ok(scored
            .iter()
            .map(|s| {
                let r = if best > 0.0 { s.score / best } else { 0.0 };
                (r, s.score)
            })
            .collect())
    }

    /// The first page for `query` (`limit` results, folded as `search_schema` folds
    /// them) and the ranker's raw score of its best hit, so `score × best` is a raw score.
    pub fn search_items(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<(Vec<SearchItem>, f32), ToolError> {
        let generation = self.generation();
        let limit = limit.clamp(1, self.config.max_limit);
        let page = self.ranked_page(
            &generation,
            query,
            &PageRequest::first(limit),
            self.config.paths_per_hit,
        )?;
        Ok((page.items, page.best))
    }

    /// One page of `scored`, near-duplicates folded: the same field on sibling types
    /// (`same field on:`) and, past [`ToolsConfig::per_type`] results of one type, that
    /// type's lower fields (`more:`).
    fn fold_page(
        &self,
        generation: &Generation,
        scored: &[gqlnav_search::Scored],
        req: &PageRequest,
        paths: usize,
    ) -> gqlnav_search::Page<SearchItem> {
        let ctx = &generation.ctx;
        let build = |slot: Slot<'_>| {
            let hit = ctx.hit(slot.rank, slot.scored, slot.score, paths);
            let e = &ctx.corpus.entries[slot.scored.doc];
            SearchItem {
                rank: slot.rank + 1,
                coordinate: hit.coordinate,
                kind: kind_name(e.kind),
                score: hit.score,
                definition: short_definition(e),
                paths_to_root: hit.paths_to_root,
                cursor: String::new(),
                members: members_note(&generation.graph, e),
                same_field_on: Vec::new(),
                more_on_type: Vec::new(),
            }
        };
        page_folded(
            scored,
            req,
            |s, docs| {
                if let Some(i) = docs.iter().position(|&d| ctx.sibling_field(d, s.doc)) {
                    return Fold::Into(i);
                }
                if self.config.per_type == 0 {
                    return Fold::New;
                }
                let owner = &ctx.corpus.entries[s.doc].owner;
                let mut same = docs
                    .iter()
                    .enumerate()
                    .filter(|(_, &d)| ctx.corpus.entries[d].owner == *owner)
                    .map(|(i, _)| i);
                match same.next() {
                    Some(first) if 1 + same.count() >= self.config.per_type => Fold::Into(first),
                    _ => Fold::New,
                }
            },
            |slot| (build(slot), 0),
            |item, slot| {
                // A sibling field lives on another type; a field folded by type on the
                // item's own.
                let e = &ctx.corpus.entries[slot.scored.doc];
                if item.coordinate.split_once('.').map(|x| x.0) == Some(e.owner.as_str()) {
                    item.more_on_type.push(e.coordinate.clone());
                } else {
                    item.same_field_on.push(e.coordinate.clone());
                }
                0
            },
        )
    }

    /// `search_schema`.
    pub fn search_schema(&self, a: &SearchRequest) -> ToolOutput {
        self.search_schema_inner(a).counted(&self.meter)
    }

    fn search_schema_inner(&self, a: &SearchRequest) -> ToolOutput {
        let generation = self.generation();
        if let Some(budget) = a.budget_tokens {
            if a.service.is_some() {
                return ToolOutput::err(
                    "`service` filters a ranked page; a budgeted slice covers every service: leave one of them out",
                    None,
                );
            }
            return self.slice_answer(&generation, &a.query, budget as usize);
        }
        let offset = match &a.cursor {
            Some(c) if !c.trim().is_empty() => match read_cursor(c, &a.query, generation.number) {
                Ok(o) => o,
                Err(e) => return ToolOutput::err(e, None),
            },
            _ => 0,
        };
        let limit = (a.limit as usize).clamp(1, self.config.max_limit);
        let req = PageRequest {
            offset,
            ..PageRequest::first(limit)
        };
        let service = match a.service.as_deref().map(|s| service_filter(&generation, s)) {
            None => None,
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => return ToolOutput::err(e, None),
        };
        let keep = service
            .as_ref()
            .map(|set| move |doc: usize| set.contains(&doc));
        let page = match self.ranked_page_where(
            &generation,
            &a.query,
            &req,
            self.config.paths_per_hit,
            keep.as_ref().map(|k| k as &dyn Fn(usize) -> bool),
        ) {
            Ok(p) => p,
            Err(e) => return ToolOutput::err(e, None),
        };
        let items = page.items;
        let next = if page.more {
            items.last().map(|it| it.cursor.clone())
        } else {
            None
        };
        let mut text = if items.is_empty() && offset > 0 {
            format!(
                "No results past position {offset} for \"{}\": the last page has been read. Call search_schema without `cursor` to start again, or with other words.",
                a.query
            )
        } else if items.is_empty() {
            format!(
                "No coordinates match \"{}\". Try other words for the same intent, or introspect a type you know (e.g. Query).",
                a.query
            )
        } else {
            let blocks: Vec<String> = items.iter().map(item_block).collect();
            format!("{}\n", blocks.join("\n"))
        };
        if let Some(n) = &next {
            text.push_str(&format!(
                "More results: call search_schema again with the same query and cursor \"{n}\".\n"
            ));
        }
        let entries = if offset == 0 {
            entry_points(&generation.graph, &items, &a.query)
        } else {
            Vec::new()
        };
        let links = if offset == 0 {
            link_fields(&generation.graph, &items)
        } else {
            Vec::new()
        };
        let returns = if offset == 0 {
            return_fields(&generation.graph, &items)
        } else {
            Vec::new()
        };
        if !returns.is_empty() {
            text.push_str(&format!(
                "What the top hits return: {}\n",
                returns.join("; ")
            ));
        }
        if !links.is_empty() {
            text.push_str(&format!(
                "Links between these types: {}\n",
                links.join("; ")
            ));
        }
        if !entries.is_empty() {
            text.push_str("Ways in from the root (with argument names):\n");
            for (t, paths) in &entries {
                text.push_str(&format!("   {t}: {}\n", paths.join("  |  ")));
            }
        }
        let example = if offset == 0 && !items.is_empty() {
            self.typed_tools(&a.query, &crate::typed::TypedOptions::default())
                .ok()
                .and_then(|set| set.example(&generation.graph.schema))
                // One line: the page's size rule counts every indentation token.
                .map(|op| op.split_whitespace().collect::<Vec<_>>().join(" "))
        } else {
            None
        };
        if let Some(op) = &example {
            // First: what a client most often needs next, before the long lists.
            text.insert_str(0, &format!("{EXAMPLE_LEAD}{op}\n"));
        }
        if !items.is_empty() {
            text.push_str(
                "Next: introspect a coordinate for its full definition, then validate an operation.",
            );
        }
        let entry_json: Vec<serde_json::Value> = entries
            .iter()
            .map(|(t, p)| json!({"type": t, "paths": p}))
            .collect();
        ToolOutput::ok(
            text,
            Some(json!({
                "query": a.query,
                "results": items,
                "entryPoints": entry_json,
                "links": links,
                "returns": returns,
                "example": example,
                "nextCursor": next,
            })),
        )
    }

    /// A budgeted answer: a slice of the schema (dense style, the toolbox's encoding) by
    /// this generation's slicer, over the same ranker as the ranked pages.
    fn slice_answer(&self, generation: &Generation, query: &str, budget: usize) -> ToolOutput {
        if let Err(e) = check_query(query) {
            return ToolOutput::err(e, None);
        }
        let sliced = generation.slicer().and_then(|slicer| {
            slicer
                .slice(
                    query,
                    &[],
                    &gqlnav_slice::SliceOptions {
                        budget: Some(budget),
                        encoding: self.meter.encoding(),
                        style: gqlnav_slice::Style::Dense,
                        ..Default::default()
                    },
                )
                .map_err(|e| ToolError::Slicer(e.to_string()))
        });
        match sliced {
            Ok(s) => ToolOutput::ok(
                format!(
                    "# Schema slice for \"{query}\": {} coordinates, {} tokens ({}) within a budget of {budget}\n{}",
                    s.coordinates.len(),
                    s.tokens,
                    self.meter.encoding(),
                    s.sdl
                ),
                Some(json!({"query": query, "budget": budget, "slice": {
                    "sdl": s.sdl, "tokens": s.tokens, "coordinates": s.coordinates,
                }})),
            ),
            Err(e) => ToolOutput::err(format!("slicing failed: {e}"), None),
        }
    }
}
