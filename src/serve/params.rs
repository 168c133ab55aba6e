//! Action API parameters: the query string and a form body merged, decoded strictly
//! (invalid UTF-8 is refused, not replaced), read as MediaWiki reads them.

use std::collections::BTreeMap;

use super::action::ApiError;

/// The parameters of one request.
#[derive(Debug, Default)]
pub(crate) struct Params {
    map: BTreeMap<String, String>,
    max_values: usize,
}

impl Params {
    /// Decodes `application/x-www-form-urlencoded` pairs from the query string and the
    /// body (the body wins, as PHP's `$_REQUEST` with POST after GET).
    pub fn parse(query: &[u8], body: &[u8], max_values: usize) -> Result<Params, ApiError> {
        let mut map = BTreeMap::new();
        for (part, what) in [(query, "query string"), (body, "request body")] {
            for pair in part.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
                let (k, v) = match pair.iter().position(|&b| b == b'=') {
                    Some(i) => (&pair[..i], &pair[i + 1..]),
                    None => (pair, &b""[..]),
                };
                map.insert(decode(k, what)?, decode(v, what)?);
            }
        }
        Ok(Params { map, max_values })
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.map.get(k).map(String::as_str)
    }

    /// A boolean parameter: true when present, whatever its value (MediaWiki's rule).
    pub fn flag(&self, k: &str) -> bool {
        self.map.contains_key(k)
    }

    /// The parameter names, for the "unrecognized parameter" warning.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    /// A multi-value parameter: `a|b|c`, or `\x1fa\x1fb` when values hold `|`.
    pub fn multi(&self, k: &str) -> Result<Vec<String>, ApiError> {
        let Some(v) = self.get(k) else {
            return Ok(Vec::new());
        };
        if v.is_empty() {
            return Ok(Vec::new());
        }
        let values: Vec<String> = match v.strip_prefix('\u{1f}') {
            Some(rest) => rest.split('\u{1f}').map(str::to_string).collect(),
            None => v.split('|').map(str::to_string).collect(),
        };
        if values.len() > self.max_values {
            return Err(ApiError::too_many(k, self.max_values));
        }
        Ok(values)
    }

    /// A multi-value parameter whose values must come from `allowed`.
    pub fn choices(&self, k: &str, allowed: &[&str]) -> Result<Vec<String>, ApiError> {
        let values = self.multi(k)?;
        for v in &values {
            if !allowed.contains(&v.as_str()) {
                return Err(ApiError::bad_value(k, v));
            }
        }
        Ok(values)
    }

    /// An integer parameter.
    pub fn int(&self, k: &str) -> Result<Option<i64>, ApiError> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v.trim().parse().map(Some).map_err(|_| {
                ApiError::new(
                    "badinteger",
                    format!("Invalid value \"{v}\" for integer parameter \"{k}\"."),
                )
            }),
        }
    }

    /// A limit parameter: a number (clamped to `max`) or `max`.
    pub fn limit(&self, k: &str, default: usize, max: usize) -> Result<usize, ApiError> {
        match self.get(k) {
            None => Ok(default),
            Some("max") => Ok(max),
            Some(_) => Ok((self.int(k)?.unwrap_or(default as i64).max(1) as usize).min(max)),
        }
    }
}

fn decode(bytes: &[u8], what: &str) -> Result<String, ApiError> {
    let plus: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == b'+' { b' ' } else { b })
        .collect();
    let raw: Vec<u8> = percent_encoding::percent_decode(&plus).collect();
    String::from_utf8(raw).map_err(|e| {
        ApiError::bad_request(
            "badutf8",
            format!(
                "The {what} is not valid UTF-8 (byte {} of a decoded value).",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_and_query_merge_and_values_split() {
        let p = Params::parse(b"action=query&titles=A|B+C", b"titles=X%7CY&redirects", 50).unwrap();
        assert_eq!(p.get("action"), Some("query"));
        assert_eq!(p.multi("titles").unwrap(), vec!["X", "Y"]);
        assert!(p.flag("redirects"));
        let p = Params::parse(b"titles=%1Fa|b%1Fc", b"", 50).unwrap();
        assert_eq!(p.multi("titles").unwrap(), vec!["a|b", "c"]);
    }

    #[test]
    fn invalid_utf8_and_too_many_values_are_refused() {
        let e = Params::parse(b"titles=%FF%FE", b"", 50).unwrap_err();
        assert_eq!(e.code, "badutf8");
        let many = format!("titles={}", vec!["T"; 51].join("|"));
        let p = Params::parse(many.as_bytes(), b"", 50).unwrap();
        assert_eq!(p.multi("titles").unwrap_err().code, "toomanyvalues");
    }

    #[test]
    fn limits_clamp_and_accept_max() {
        let p = Params::parse(b"pllimit=max&bllimit=9999&cmlimit=x", b"", 50).unwrap();
        assert_eq!(p.limit("pllimit", 10, 500).unwrap(), 500);
        assert_eq!(p.limit("bllimit", 10, 500).unwrap(), 500);
        assert_eq!(p.limit("other", 10, 500).unwrap(), 10);
        assert_eq!(p.limit("cmlimit", 10, 500).unwrap_err().code, "badinteger");
    }
}
