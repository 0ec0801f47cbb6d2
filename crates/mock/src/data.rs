//! Values from hashes: identities, list lengths, scalars valid for their type, cursors
//! and global ids. Everything here is a pure function of its inputs.

use apollo_compiler::response::JsonValue;
use gqlnav_schema::Fnv64;

/// Mix a parent identity with a word (a field name, a salt).
pub(crate) fn mix(parent: u64, word: &str) -> u64 {
    let mut h = Fnv64::new();
    h.write(&parent.to_le_bytes());
    h.str(word);
    scramble(h.finish())
}

/// Mix a parent identity with a list position.
pub(crate) fn mix_index(parent: u64, i: usize) -> u64 {
    let mut h = Fnv64::new();
    h.write(&parent.to_le_bytes());
    h.write(&(i as u64).to_le_bytes());
    scramble(h.finish())
}

/// SplitMix64's finaliser: FNV's low bits are weak, and lengths and enum choices read
/// them.
fn scramble(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Arguments in a canonical text: keys sorted at every level, `null`s left out (an
/// explicit null is the same request as no value).
pub(crate) fn canonical(v: &JsonValue, out: &mut String) {
    match v {
        JsonValue::Object(m) => {
            let mut keys: Vec<(&str, &JsonValue)> = m
                .iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.as_str(), x))
                .collect();
            keys.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (k, x) in keys {
                out.push_str(k);
                out.push(':');
                canonical(x, out);
                out.push(',');
            }
            out.push('}');
        }
        JsonValue::Array(a) => {
            out.push('[');
            for x in a {
                canonical(x, out);
                out.push(',');
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Items a connection holds: 1 to 30. Never empty, so a filter that was forgotten
/// rarely yields the same (empty) answer as the right one.
pub(crate) fn connection_total(h: u64) -> usize {
    1 + (h % 30) as usize
}

/// Items of a plain GraphQL list: 1 to 5.
pub(crate) fn list_len(h: u64) -> usize {
    1 + (h % 5) as usize
}

/// A cursor for position `i` (opaque to clients; [`cursor_index`] reads it back).
pub(crate) fn cursor(i: usize) -> String {
    format!("cursor:{i}")
}

pub(crate) fn cursor_index(c: &str) -> Option<usize> {
    c.strip_prefix("cursor:")?.parse().ok()
}

/// A global id that names its object: `Type_<16 hex digits of its identity>`. A lookup
/// by this id returns that same object ([`decode_id`]).
pub(crate) fn encode_id(ty: &str, id: u64) -> String {
    format!("{ty}_{id:016x}")
}

pub(crate) fn decode_id(s: &str) -> Option<(&str, u64)> {
    let (ty, hex) = s.rsplit_once('_')?;
    if hex.len() != 16 || ty.is_empty() {
        return None;
    }
    u64::from_str_radix(hex, 16).ok().map(|id| (ty, id))
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's civil_from_days).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// An instant within the year before `today` (seconds since the epoch), RFC 3339 in UTC.
pub(crate) fn date_time(today: i64, h: u64) -> String {
    let t = today - (h % (365 * 86_400)) as i64;
    let (y, m, d) = civil(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// A day within the year before `today`, `YYYY-MM-DD`.
pub(crate) fn date(today: i64, h: u64) -> String {
    date_time(today, h)[..10].to_string()
}

/// A value of the scalar `scalar` for the field `field`. Built-in scalars follow their
/// type; a custom scalar is read by its name: a date name (not date-time) gives
/// `YYYY-MM-DD`, other date/time names RFC 3339 text in UTC, URL
/// and URI names an `https` URL, HTML names a paragraph, JSON names an object; anything
/// else a string.
pub(crate) fn scalar(scalar: &str, field: &str, h: u64, today: i64) -> JsonValue {
    let short = h & 0xffff;
    match scalar {
        "Int" => JsonValue::from((h % 1000) as i64),
        "Float" => JsonValue::from((h % 100_000) as f64 / 100.0),
        "Boolean" => JsonValue::from(h & 1 == 1),
        "String" => JsonValue::from(format!("{field}-{short:04x}")),
        "ID" => JsonValue::from(format!("{field}-{:08x}", h & 0xffff_ffff)),
        custom => {
            let lower = custom.to_ascii_lowercase();
            if lower.contains("date") && !lower.contains("datetime") {
                JsonValue::from(date(today, h))
            } else if lower.contains("time") || lower.contains("instant") {
                JsonValue::from(date_time(today, h))
            } else if lower.contains("uri") || lower.contains("url") {
                JsonValue::from(format!("https://example.com/{field}/{short:04x}"))
            } else if lower.contains("html") {
                JsonValue::from(format!("<p>{field}-{short:04x}</p>"))
            } else if lower.contains("json") {
                let mut m = apollo_compiler::response::JsonMap::new();
                m.insert(field, JsonValue::from(format!("{short:04x}")));
                JsonValue::Object(m)
            } else {
                JsonValue::from(format!("{field}-{short:04x}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339_within_the_year_before_today() {
        // 2025-06-01T00:00:00Z
        let today = 1_748_736_000;
        assert_eq!(date_time(today, 0), "2025-06-01T00:00:00Z");
        assert_eq!(date_time(today, 86_400), "2025-05-31T00:00:00Z");
        assert_eq!(date(today, 366 * 86_400), "2025-05-31");
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_358), (2023, 1, 1));
    }

    #[test]
    fn ids_and_cursors_read_back() {
        let id = encode_id("Issue", 0xdead_beef_0000_0001);
        assert_eq!(decode_id(&id), Some(("Issue", 0xdead_beef_0000_0001)));
        assert_eq!(decode_id("Issue_12"), None);
        assert_eq!(decode_id("plain"), None);
        assert_eq!(cursor_index(&cursor(7)), Some(7));
        assert_eq!(cursor_index("nope"), None);
    }

    #[test]
    fn canonical_text_ignores_key_order_and_nulls() {
        let a: JsonValue =
            serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":null}}"#).expect("json");
        let b: JsonValue = serde_json::from_str(r#"{"a":{"y":[1,2]},"b":1}"#).expect("json");
        let (mut x, mut y) = (String::new(), String::new());
        canonical(&a, &mut x);
        canonical(&b, &mut y);
        assert_eq!(x, y);
        assert_ne!(mix(1, &x), mix(2, &x));
        assert_ne!(mix_index(1, 0), mix_index(1, 1));
    }

    #[test]
    fn scalars_follow_their_type() {
        let today = 1_748_736_000;
        assert!(scalar("Int", "n", 5, today).is_i64());
        assert!(scalar("Float", "n", 5, today).is_f64());
        assert!(scalar("Boolean", "b", 5, today).is_boolean());
        let dt = scalar("DateTime", "createdAt", 5, today);
        assert!(dt
            .as_str()
            .is_some_and(|s| s.ends_with('Z') && s.len() == 20));
        assert_eq!(
            scalar("TimelessDate", "due", 0, today).as_str(),
            Some("2025-06-01")
        );
        assert_eq!(
            scalar("Timestamp", "at", 0, today).as_str(),
            Some("2025-06-01T00:00:00Z")
        );
        assert!(scalar("URI", "url", 5, today)
            .as_str()
            .is_some_and(|s| s.starts_with("https://")));
        assert!(scalar("JSON", "meta", 5, today).is_object());
    }
}
