//! HTML (and Markdown) → main content → sections by heading, each with its anchor and
//! heading path.
//!
//! Main content, in order of preference: `<main>`, an element with `role="main"`,
//! `<article>`, else `<body>`. Inside it, `script`, `style`, `nav`, `header`, `footer`,
//! `aside`, `form` and `noscript` are skipped, as are permalink markers (`a.headerlink`).
//! A heading (`h1`–`h6`) starts a section; its anchor is the heading's `id`, else the id
//! of the nearest enclosing element that has one and starts with this heading (Sphinx and
//! many generators put the id on a `<section>`), else an `id`/`name` of an `<a>` inside it.
//! (A readability port was considered: it flattens the page and drops the section ids
//! this needs, so the structure is read directly.)

use scraper::{ElementRef, Html, Node, Selector};

/// One section of a page.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Section {
    /// The fragment that links to it (`""` for text before the first heading).
    pub anchor: String,
    /// Headings from the page's top heading down to this one.
    pub heading_path: Vec<String>,
    /// The section's own text (subsections excluded), blocks separated by newlines.
    pub text: String,
}

/// A page read into sections.
#[derive(Debug, Clone)]
pub struct Page {
    pub title: String,
    pub sections: Vec<Section>,
}

const SKIP: [&str; 8] = [
    "script", "style", "nav", "header", "footer", "aside", "form", "noscript",
];
const BLOCK: [&str; 22] = [
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "pre",
    "dt",
    "dd",
    "dl",
    "table",
    "tr",
    "td",
    "th",
    "blockquote",
    "section",
    "article",
    "br",
    "figure",
    "figcaption",
    "main",
    "hr",
    "tbody",
];

fn heading_level(name: &str) -> Option<usize> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

struct Walker {
    sections: Vec<Section>,
    /// (level, heading text)
    stack: Vec<(usize, String)>,
    cur: String,
    anchor: String,
    in_pre: usize,
}

impl Walker {
    fn flush(&mut self) {
        let text = tidy(&self.cur);
        if !text.is_empty() || !self.anchor.is_empty() {
            self.sections.push(Section {
                anchor: self.anchor.clone(),
                heading_path: self.stack.iter().map(|s| s.1.clone()).collect(),
                text,
            });
        }
        self.cur.clear();
    }

    fn walk(&mut self, el: ElementRef<'_>) {
        for child in el.children() {
            match child.value() {
                Node::Text(t) => {
                    if self.in_pre > 0 {
                        self.cur.push_str(t);
                    } else {
                        let s: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
                        if !s.is_empty() {
                            if !self.cur.ends_with([' ', '\n']) && !self.cur.is_empty() {
                                let starts_punct = s.starts_with(|c: char| ",.;:)".contains(c));
                                let leading_space = t.starts_with(char::is_whitespace);
                                if leading_space || !starts_punct {
                                    self.cur.push(' ');
                                }
                            }
                            self.cur.push_str(&s);
                        }
                    }
                }
                Node::Element(e) => {
                    let Some(child_el) = ElementRef::wrap(child) else {
                        continue;
                    };
                    let name = e.name();
                    if SKIP.contains(&name)
                        || e.has_class("headerlink", scraper::CaseSensitivity::AsciiCaseInsensitive)
                    {
                        continue;
                    }
                    if let Some(level) = heading_level(name) {
                        self.flush();
                        let text = tidy(&child_el.text().collect::<String>())
                            .trim_end_matches('¶')
                            .trim()
                            .to_string();
                        while self.stack.last().is_some_and(|(l, _)| *l >= level) {
                            self.stack.pop();
                        }
                        self.stack.push((level, text));
                        self.anchor = anchor_of(child_el);
                        continue;
                    }
                    let block = BLOCK.contains(&name);
                    if block && !self.cur.ends_with('\n') && !self.cur.is_empty() {
                        self.cur.push('\n');
                    }
                    if name == "pre" {
                        self.in_pre += 1;
                    }
                    self.walk(child_el);
                    if name == "pre" {
                        self.in_pre -= 1;
                    }
                    if block && !self.cur.ends_with('\n') {
                        self.cur.push('\n');
                    }
                }
                _ => {}
            }
        }
    }
}

/// Collapse blank lines and trailing spaces.
fn tidy(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let l = line.trim_end();
        if l.trim().is_empty() {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out.trim().to_string()
}

/// The fragment of a heading: its id, the id of an enclosing element it opens, or an
/// anchor inside it.
fn anchor_of(h: ElementRef<'_>) -> String {
    if let Some(id) = h.value().id() {
        return id.to_string();
    }
    // An enclosing element whose first element child is this heading.
    let mut node = h;
    while let Some(parent) = node.parent().and_then(ElementRef::wrap) {
        let first = parent.children().filter_map(ElementRef::wrap).next();
        if first.map(|f| f.id()) != Some(node.id()) {
            break;
        }
        if let Some(id) = parent.value().id() {
            return id.to_string();
        }
        node = parent;
    }
    for d in h.descendants().filter_map(ElementRef::wrap) {
        if d.value().name() == "a" {
            if let Some(id) = d.value().id().or_else(|| d.value().attr("name")) {
                return id.to_string();
            }
        }
    }
    String::new()
}

/// Read an HTML page into its title and sections.
pub fn html_page(html: &str) -> Page {
    let doc = Html::parse_document(html);
    let title = Selector::parse("title")
        .ok()
        .and_then(|s| doc.select(&s).next())
        .map(|t| tidy(&t.text().collect::<String>()))
        .unwrap_or_default();
    let root = ["main", "[role=main]", "article", "body"]
        .iter()
        .filter_map(|s| Selector::parse(s).ok())
        .find_map(|s| doc.select(&s).next())
        .unwrap_or_else(|| doc.root_element());
    let mut w = Walker {
        sections: Vec::new(),
        stack: Vec::new(),
        cur: String::new(),
        anchor: String::new(),
        in_pre: 0,
    };
    w.walk(root);
    w.flush();
    let title = if title.is_empty() {
        w.stack.first().map(|s| s.1.clone()).unwrap_or_default()
    } else {
        title
    };
    Page {
        title,
        sections: w.sections,
    }
}

/// GitHub-style heading slug: lower case, spaces to `-`, punctuation dropped.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Read a Markdown page: ATX headings (`#` … `######`) start sections, anchored by slug.
/// Fenced code is kept as text (a `#` inside it is not a heading).
pub fn markdown_page(md: &str) -> Page {
    let mut sections = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut cur = String::new();
    let mut anchor = String::new();
    let mut fenced = false;
    let flush =
        |cur: &mut String, anchor: &str, stack: &[(usize, String)], out: &mut Vec<Section>| {
            let text = tidy(cur);
            if !text.is_empty() || !anchor.is_empty() {
                out.push(Section {
                    anchor: anchor.to_string(),
                    heading_path: stack.iter().map(|s| s.1.clone()).collect(),
                    text,
                });
            }
            cur.clear();
        };
    for line in md.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !fenced && (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            flush(&mut cur, &anchor, &stack, &mut sections);
            let text = line[hashes..]
                .trim()
                .trim_end_matches('#')
                .trim()
                .to_string();
            while stack.last().is_some_and(|(l, _)| *l >= hashes) {
                stack.pop();
            }
            anchor = slug(&text);
            stack.push((hashes, text));
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
    }
    flush(&mut cur, &anchor, &stack, &mut sections);
    Page {
        title: stack
            .first()
            .map(|s| s.1.clone())
            .or_else(|| {
                sections
                    .iter()
                    .find_map(|s| s.heading_path.first().cloned())
            })
            .unwrap_or_default(),
        sections,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_take_the_id_of_the_section_they_open() {
        let p = html_page(
            r##"<html><head><title>json — JSON</title></head><body><nav>skip me</nav>
            <div role="main"><section id="module-json"><h1>json<a class="headerlink" href="#">¶</a></h1>
            <p>Intro text.</p>
            <section id="basic-usage"><h2>Basic Usage</h2><p>Use <code>dumps</code>, then.</p>
            <pre>x = 1
y = 2</pre></section></section></div></body></html>"##,
        );
        assert_eq!(p.title, "json — JSON");
        assert_eq!(p.sections.len(), 2, "{:?}", p.sections);
        assert_eq!(p.sections[0].anchor, "module-json");
        assert_eq!(p.sections[0].text, "Intro text.");
        assert_eq!(p.sections[1].anchor, "basic-usage");
        assert_eq!(p.sections[1].heading_path, vec!["json", "Basic Usage"]);
        assert!(p.sections[1].text.contains("Use dumps, then."));
        assert!(p.sections[1].text.contains("x = 1\ny = 2"));
        assert!(!p.sections.iter().any(|s| s.text.contains("skip me")));
    }

    #[test]
    fn broken_html_and_markdown_still_give_sections() {
        let p = html_page("<h2 id=a>One<p>text <b>bold</p><h2>Two</h2><p>more");
        assert_eq!(p.sections.len(), 2);
        assert_eq!(p.sections[0].anchor, "a");
        let m = markdown_page("# Title\nintro\n## Sub Part\n```\n# not a heading\n```\nbody\n");
        assert_eq!(m.sections.len(), 2);
        assert_eq!(m.sections[1].anchor, "sub-part");
        assert!(m.sections[1].text.contains("# not a heading"));
    }
}
