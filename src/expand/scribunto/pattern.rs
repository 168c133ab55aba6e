//! Lua 5.1 patterns over a sequence of code points, as Scribunto's `mw.ustring` runs
//! them: the classes `%a`, `%l`, `%u`, `%d`, `%s`, `%p`, `%w`, `%c`, `%x` are
//! Unicode-aware, positions count characters, and every step of the backtracking
//! matcher is counted so that a pathological pattern ends in an error, not a hang.
//!
//! Written from the Lua 5.1 reference manual (§5.4.1) and Scribunto's documentation of
//! `mw.ustring`; not a port of either implementation.

use thiserror::Error;

/// Why a pattern could not be matched.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum PatternError {
    #[error("malformed pattern ({0})")]
    Malformed(&'static str),
    #[error("invalid capture index")]
    InvalidCapture,
    #[error("too many captures")]
    TooManyCaptures,
    #[error("pattern too complex")]
    TooComplex,
    /// Refused before matching, with Scribunto's message (see [`check`]).
    #[error("{0}")]
    Syntax(String),
}

/// Captures at most, as Lua's `LUA_MAXCAPTURES`.
const MAX_CAPTURES: usize = 32;
/// Matcher steps per call before it gives up: enough for any ordinary use, small
/// enough that `(".-"):rep(8)` on a long text stops in well under a second.
const MAX_STEPS: u64 = 20_000_000;
/// Recursion depth of the matcher (Lua's `MAXCCALLS`).
const MAX_DEPTH: u32 = 200;

/// One capture: a range of the subject, or a position capture `()` (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Capture {
    Text(usize, usize),
    Position(usize),
}

#[derive(Clone, Copy)]
enum Len {
    Open,
    Position,
    Closed(usize),
}

struct Matcher<'a> {
    s: &'a [char],
    p: &'a [char],
    level: usize,
    capture: [(usize, Len); MAX_CAPTURES],
    steps: u64,
    depth: u32,
}

/// Whether `c` is in the class named by letter `cl` (`a`, `d`, …; upper case negates).
fn class_matches(cl: char, c: char) -> bool {
    let r = match cl.to_ascii_lowercase() {
        'a' => c.is_alphabetic(),
        'c' => c.is_control(),
        'd' => c.is_numeric() && is_decimal(c),
        'l' => c.is_lowercase(),
        'p' => is_punctuation(c),
        's' => c.is_whitespace(),
        'u' => c.is_uppercase(),
        'w' => c.is_alphanumeric(),
        'x' => c.is_ascii_hexdigit(),
        'z' => c == '\0',
        _ => return cl == c,
    };
    if cl.is_ascii_uppercase() { !r } else { r }
}

/// Decimal digits (Unicode `Nd`), approximated by the characters whose numeric value
/// Rust's `to_digit` style tables know: ASCII plus the common script digit blocks.
fn is_decimal(c: char) -> bool {
    if c.is_ascii_digit() {
        return true;
    }
    let u = c as u32;
    // Blocks of ten consecutive digits (Arabic-Indic, Devanagari, …, fullwidth).
    const STARTS: &[u32] = &[
        0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6,
        0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0xFF10,
    ];
    STARTS.iter().any(|&s| (s..s + 10).contains(&u))
}

/// Unicode punctuation (`P*`) as far as ASCII and the general punctuation blocks go,
/// plus ASCII symbols, which Lua's `ispunct` includes.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    let u = c as u32;
    matches!(u,
        0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF | 0x37E | 0x387
        | 0x55A..=0x55F | 0x589 | 0x58A | 0x5BE | 0x5C0 | 0x5C3 | 0x5C6 | 0x5F3 | 0x5F4
        | 0x609 | 0x60A | 0x60C | 0x60D | 0x61B | 0x61E | 0x61F | 0x66A..=0x66D | 0x6D4
        | 0x964 | 0x965 | 0x970 | 0xE4F | 0xE5A | 0xE5B
        | 0x2010..=0x2027 | 0x2030..=0x2043 | 0x2045..=0x2051 | 0x2053..=0x205E
        | 0x207D | 0x207E | 0x208D | 0x208E | 0x2308..=0x230B | 0x2329 | 0x232A
        | 0x2768..=0x2775 | 0x27C5 | 0x27C6 | 0x27E6..=0x27EF | 0x2983..=0x2998
        | 0x29D8..=0x29DB | 0x29FC | 0x29FD | 0x2CF9..=0x2CFC | 0x2CFE | 0x2CFF
        | 0x2E00..=0x2E2E | 0x2E30..=0x2E4F | 0x3001..=0x3003 | 0x3008..=0x3011
        | 0x3014..=0x301F | 0x3030 | 0x303D | 0x30A0 | 0x30FB
        | 0xFE10..=0xFE19 | 0xFE30..=0xFE52 | 0xFE54..=0xFE61 | 0xFE63 | 0xFE68 | 0xFE6A
        | 0xFE6B | 0xFF01..=0xFF03 | 0xFF05..=0xFF0A | 0xFF0C..=0xFF0F | 0xFF1A | 0xFF1B
        | 0xFF1F | 0xFF20 | 0xFF3B..=0xFF3D | 0xFF3F | 0xFF5B | 0xFF5D | 0xFF5F..=0xFF65)
}

impl<'a> Matcher<'a> {
    fn class_end(&self, mut p: usize) -> Result<usize, PatternError> {
        let c = self.p[p];
        p += 1;
        if c == '%' {
            if p >= self.p.len() {
                return Err(PatternError::Malformed("ends with '%'"));
            }
            return Ok(p + 1);
        }
        if c == '[' {
            if self.p.get(p) == Some(&'^') {
                p += 1;
            }
            // The first `]` of a set is literal.
            loop {
                if p >= self.p.len() {
                    return Err(PatternError::Malformed("missing ']'"));
                }
                let cc = self.p[p];
                p += 1;
                if cc == '%' {
                    if p >= self.p.len() {
                        return Err(PatternError::Malformed("missing ']'"));
                    }
                    p += 1;
                }
                if p < self.p.len() && self.p[p] == ']' {
                    return Ok(p + 1);
                }
                if p >= self.p.len() {
                    return Err(PatternError::Malformed("missing ']'"));
                }
            }
        }
        Ok(p)
    }

    /// Whether `c` is in the set `[p..ec)` (`p` at `[`, `ec` just after `]`).
    fn match_set(&self, c: char, p: usize, ec: usize) -> bool {
        let mut p = p + 1;
        let end = ec - 1;
        let negate = self.p.get(p) == Some(&'^');
        if negate {
            p += 1;
        }
        let mut first = true;
        while p < end {
            let pc = self.p[p];
            if pc == '%' && p + 1 < end {
                if class_matches(self.p[p + 1], c) {
                    return !negate;
                }
                p += 2;
            } else if p + 2 < end && self.p[p + 1] == '-' {
                if pc <= c && c <= self.p[p + 2] {
                    return !negate;
                }
                p += 3;
            } else {
                if pc == c && (first || pc != ']' || p + 1 < end) {
                    return !negate;
                }
                p += 1;
            }
            first = false;
        }
        negate
    }

    fn single(&self, si: usize, p: usize, ep: usize) -> bool {
        let Some(&c) = self.s.get(si) else {
            return false;
        };
        match self.p[p] {
            '.' => true,
            '%' => class_matches(self.p[p + 1], c),
            '[' => self.match_set(c, p, ep),
            pc => pc == c,
        }
    }

    fn tick(&mut self) -> Result<(), PatternError> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(PatternError::TooComplex);
        }
        Ok(())
    }

    fn do_match(&mut self, si: usize, p: usize) -> Result<Option<usize>, PatternError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(PatternError::TooComplex);
        }
        let r = self.do_match_inner(si, p);
        self.depth -= 1;
        r
    }

    fn do_match_inner(
        &mut self,
        mut si: usize,
        mut p: usize,
    ) -> Result<Option<usize>, PatternError> {
        loop {
            self.tick()?;
            if p >= self.p.len() {
                return Ok(Some(si));
            }
            match self.p[p] {
                '(' => {
                    return if self.p.get(p + 1) == Some(&')') {
                        self.start_capture(si, p + 2, Len::Position)
                    } else {
                        self.start_capture(si, p + 1, Len::Open)
                    };
                }
                ')' => return self.end_capture(si, p + 1),
                '$' if p + 1 == self.p.len() => {
                    return Ok((si == self.s.len()).then_some(si));
                }
                '%' if self.p.get(p + 1) == Some(&'b') => {
                    let (Some(&open), Some(&close)) = (self.p.get(p + 2), self.p.get(p + 3)) else {
                        return Err(PatternError::Malformed("missing arguments to '%b'"));
                    };
                    if self.s.get(si) != Some(&open) {
                        return Ok(None);
                    }
                    let mut depth = 1;
                    let mut j = si + 1;
                    let mut found = None;
                    while j < self.s.len() {
                        self.tick()?;
                        let c = self.s[j];
                        if c == close {
                            depth -= 1;
                            if depth == 0 {
                                found = Some(j + 1);
                                break;
                            }
                        } else if c == open {
                            depth += 1;
                        }
                        j += 1;
                    }
                    let Some(next) = found else { return Ok(None) };
                    si = next;
                    p += 4;
                    continue;
                }
                '%' if self.p.get(p + 1) == Some(&'f') => {
                    p += 2;
                    if self.p.get(p) != Some(&'[') {
                        return Err(PatternError::Malformed("missing '[' after '%f'"));
                    }
                    let ep = self.class_end(p)?;
                    let prev = if si == 0 { '\0' } else { self.s[si - 1] };
                    let cur = self.s.get(si).copied().unwrap_or('\0');
                    if !self.match_set(prev, p, ep) && self.match_set(cur, p, ep) {
                        p = ep;
                        continue;
                    }
                    return Ok(None);
                }
                '%' if self.p.get(p + 1).is_some_and(|c| c.is_ascii_digit()) => {
                    let d = self.p[p + 1] as usize - '0' as usize;
                    let (start, len) = match d
                        .checked_sub(1)
                        .and_then(|l| (l < self.level).then(|| self.capture[l]))
                    {
                        Some((start, Len::Closed(len))) => (start, len),
                        _ => return Err(PatternError::InvalidCapture),
                    };
                    if self.s.len() - si >= len
                        && self.s[start..start + len] == self.s[si..si + len]
                    {
                        si += len;
                        p += 2;
                        continue;
                    }
                    return Ok(None);
                }
                _ => {}
            }
            let ep = self.class_end(p)?;
            let m = self.single(si, p, ep);
            match self.p.get(ep) {
                Some('?') => {
                    if m && let Some(r) = self.do_match(si + 1, ep + 1)? {
                        return Ok(Some(r));
                    }
                    p = ep + 1;
                }
                Some('*') => return self.max_expand(si, p, ep),
                Some('+') => {
                    return if m {
                        self.max_expand(si + 1, p, ep)
                    } else {
                        Ok(None)
                    };
                }
                Some('-') => return self.min_expand(si, p, ep),
                _ => {
                    if !m {
                        return Ok(None);
                    }
                    si += 1;
                    p = ep;
                }
            }
        }
    }

    fn max_expand(
        &mut self,
        si: usize,
        p: usize,
        ep: usize,
    ) -> Result<Option<usize>, PatternError> {
        let mut i = 0;
        while self.single(si + i, p, ep) {
            self.tick()?;
            i += 1;
        }
        loop {
            if let Some(r) = self.do_match(si + i, ep + 1)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(
        &mut self,
        mut si: usize,
        p: usize,
        ep: usize,
    ) -> Result<Option<usize>, PatternError> {
        loop {
            if let Some(r) = self.do_match(si, ep + 1)? {
                return Ok(Some(r));
            }
            if self.single(si, p, ep) {
                si += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(
        &mut self,
        si: usize,
        p: usize,
        what: Len,
    ) -> Result<Option<usize>, PatternError> {
        if self.level >= MAX_CAPTURES {
            return Err(PatternError::TooManyCaptures);
        }
        self.capture[self.level] = (si, what);
        self.level += 1;
        let r = self.do_match(si, p)?;
        if r.is_none() {
            self.level -= 1;
        }
        Ok(r)
    }

    fn end_capture(&mut self, si: usize, p: usize) -> Result<Option<usize>, PatternError> {
        let Some(l) = (0..self.level)
            .rev()
            .find(|&l| matches!(self.capture[l].1, Len::Open))
        else {
            return Err(PatternError::Malformed("invalid pattern capture"));
        };
        self.capture[l].1 = Len::Closed(si - self.capture[l].0);
        let r = self.do_match(si, p)?;
        if r.is_none() {
            self.capture[l].1 = Len::Open;
        }
        Ok(r)
    }

    fn captures(
        &self,
        start: usize,
        end: usize,
        whole_if_none: bool,
    ) -> Result<Vec<Capture>, PatternError> {
        if self.level == 0 && whole_if_none {
            return Ok(vec![Capture::Text(start, end)]);
        }
        (0..self.level)
            .map(|i| match self.capture[i] {
                (st, Len::Closed(len)) => Ok(Capture::Text(st, st + len)),
                (st, Len::Position) => Ok(Capture::Position(st + 1)),
                (_, Len::Open) => Err(PatternError::Malformed("unfinished capture")),
            })
            .collect()
    }
}

/// A successful match: the matched range (0-based, end exclusive, in characters) and the
/// captures (the whole match when the pattern has none and `whole_if_none`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub captures: Vec<Capture>,
}

/// Searches `s` from character `init` (0-based) for `pattern`. A leading `^` anchors
/// unless `gmatch` (Lua 5.1's `gmatch` takes it literally).
pub fn find(
    s: &[char],
    pattern: &[char],
    init: usize,
    whole_if_none: bool,
    gmatch: bool,
) -> Result<Option<Found>, PatternError> {
    let (anchor, p) = split_anchor(pattern, gmatch);
    let mut si = init;
    let mut steps = 0;
    while si <= s.len() {
        if let Some(f) = match_at(s, p, si, whole_if_none, &mut steps)? {
            return Ok(Some(f));
        }
        if anchor {
            break;
        }
        si += 1;
    }
    Ok(None)
}

/// The pattern without its anchor, and whether it had one.
pub(crate) fn split_anchor(pattern: &[char], gmatch: bool) -> (bool, &[char]) {
    match pattern.first() {
        Some('^') if !gmatch => (true, &pattern[1..]),
        _ => (false, pattern),
    }
}

/// Matches `pattern` (anchor already removed) at exactly character `si`; `steps` is
/// the matcher work spent so far by the calling search (bounded by [`MAX_STEPS`]).
pub(crate) fn match_at(
    s: &[char],
    pattern: &[char],
    si: usize,
    whole_if_none: bool,
    steps: &mut u64,
) -> Result<Option<Found>, PatternError> {
    let mut m = Matcher {
        s,
        p: pattern,
        level: 0,
        capture: [(0, Len::Open); MAX_CAPTURES],
        steps: *steps,
        depth: 0,
    };
    let r = m.do_match(si, 0);
    *steps = m.steps;
    match r? {
        Some(end) => {
            let captures = m.captures(si, end, whole_if_none)?;
            Ok(Some(Found {
                start: si,
                end,
                captures,
            }))
        }
        None => Ok(None),
    }
}

/// Characters special in patterns: a pattern without them matches literally.
pub(crate) fn is_plain(pattern: &[char]) -> bool {
    !pattern.iter().any(|c| "^$*+?.([%-".contains(*c))
}

/// Scribunto compiles a whole pattern before it matches anything, so a pattern with a
/// syntax error fails even where Lua's matcher would never reach the error, and with
/// its own messages (positions count characters from 1). This walk refuses what that
/// compilation refuses.
pub(crate) fn check(p: &[char]) -> Result<(), PatternError> {
    let at = |what: &str, i: usize| {
        Err(PatternError::Syntax(format!(
            "{what} at pattern character {}",
            i + 1
        )))
    };
    // Captures so far (their number) and the opening positions of those still open.
    let mut captures = 0usize;
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let here = i;
        let mut quantifiable = false;
        match p[i] {
            '(' => {
                if i + 1 >= p.len() {
                    return at("Unmatched open-paren", here);
                }
                captures += 1;
                open.push((captures, here));
            }
            ')' => {
                if open.pop().is_none() {
                    return at("Unmatched close-paren", here);
                }
            }
            '%' => {
                i += 1;
                let Some(&c) = p.get(i) else {
                    return Err(PatternError::Malformed("ends with '%'"));
                };
                match c {
                    'b' if i + 2 >= p.len() => {
                        return Err(PatternError::Malformed("missing arguments to '%b'"));
                    }
                    'b' => i += 2,
                    'f' => {
                        if p.get(i + 1) != Some(&'[') {
                            return at("missing '[' after %f in pattern", here);
                        }
                        i = set_end(p, i + 1)?;
                    }
                    '0'..='9' => {
                        let n = c as usize - '0' as usize;
                        if n == 0 || n > captures || open.iter().any(|&(k, _)| k == n) {
                            return at(&format!("invalid capture index %{n}"), here);
                        }
                    }
                    _ => quantifiable = true,
                }
            }
            '[' => {
                i = set_end(p, i)?;
                quantifiable = true;
            }
            ']' => return at("Unmatched close-bracket", here),
            '^' | '$' => {}
            _ => quantifiable = true,
        }
        if quantifiable && matches!(p.get(i + 1), Some('*' | '+' | '?' | '-')) {
            i += 1;
        }
        i += 1;
    }
    match open.first() {
        Some(&(_, pos)) => at("Unclosed capture beginning", pos),
        None => Ok(()),
    }
}

/// The index of the `]` closing the set that opens at `start`: a `]` first in the set
/// (after an optional `^`) is a member, and `%` escapes the next character.
fn set_end(p: &[char], start: usize) -> Result<usize, PatternError> {
    let mut i = start + 1;
    if p.get(i) == Some(&'^') {
        i += 1;
    }
    let first = i;
    while i < p.len() && (i == first || p[i] != ']') {
        if p[i] == '%' {
            i += 1;
            if i >= p.len() {
                break;
            }
        } else if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' && p[i + 2] != '%' {
            i += 2;
        }
        i += 1;
    }
    if i >= p.len() {
        return Err(PatternError::Syntax(format!(
            "Missing close-bracket for character set beginning at pattern character {}",
            start + 1
        )));
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn first(s: &str, p: &str) -> Option<(usize, usize)> {
        find(&chars(s), &chars(p), 0, true, false)
            .unwrap()
            .map(|f| (f.start, f.end))
    }

    #[test]
    fn classes_and_quantifiers() {
        assert_eq!(first("hello world", "o w"), Some((4, 7)));
        assert_eq!(first("abc123", "%d+"), Some((3, 6)));
        assert_eq!(first("āčē x", "%a+"), Some((0, 3)));
        assert_eq!(first("  x", "^%s*"), Some((0, 2)));
        assert_eq!(first("x", "^y"), None);
        assert_eq!(first("[[a]]", "%[%[(.-)%]%]"), Some((0, 5)));
        assert_eq!(first("f(a(b)c)d", "%b()"), Some((1, 8)));
        assert_eq!(first("THE (quick) fox", "%f[%a]%a+"), Some((0, 3)));
        assert_eq!(first("abcabc", "(abc)%1"), Some((0, 6)));
        assert_eq!(first("a-b", "[%-]"), Some((1, 2)));
        assert_eq!(first("x]", "[]]"), Some((1, 2)));
        assert_eq!(first("ab", "b$"), Some((1, 2)));
    }

    #[test]
    fn captures() {
        let f = find(
            &chars("key = value"),
            &chars("(%w+)%s*=%s*()(%w+)"),
            0,
            true,
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            f.captures,
            vec![
                Capture::Text(0, 3),
                Capture::Position(7),
                Capture::Text(6, 11)
            ]
        );
    }

    fn refusal(p: &str) -> String {
        check(&chars(p)).unwrap_err().to_string()
    }

    /// What MediaWiki 1.39's Scribunto answers for these patterns (positions count
    /// characters, and the whole pattern is checked before matching).
    #[test]
    fn syntax_errors_read_as_scribunto_reports_them() {
        assert_eq!(
            refusal("x()[^]"),
            "Missing close-bracket for character set beginning at pattern character 4"
        );
        assert_eq!(
            refusal("é[a-%]"),
            "Missing close-bracket for character set beginning at pattern character 2"
        );
        assert_eq!(
            refusal("a]"),
            "Unmatched close-bracket at pattern character 2"
        );
        assert_eq!(
            refusal("(a))"),
            "Unmatched close-paren at pattern character 4"
        );
        assert_eq!(
            refusal("ab("),
            "Unmatched open-paren at pattern character 3"
        );
        assert_eq!(
            refusal("x(a(b)"),
            "Unclosed capture beginning at pattern character 2"
        );
        assert_eq!(
            refusal("(a)%2"),
            "invalid capture index %2 at pattern character 4"
        );
        assert_eq!(
            refusal("(a%1)"),
            "invalid capture index %1 at pattern character 3"
        );
        assert_eq!(
            refusal("%fa"),
            "missing '[' after %f in pattern at pattern character 1"
        );
        assert_eq!(refusal("a%"), "malformed pattern (ends with '%')");
        assert_eq!(
            refusal("%b("),
            "malformed pattern (missing arguments to '%b')"
        );
        for fine in [
            "[]]", "[^]]", "%]", "(a)%1", "[a-z]*x", "%f[%w]", "()", "^$", "a-",
        ] {
            assert_eq!(check(&chars(fine)), Ok(()), "{fine}");
        }
    }

    #[test]
    fn errors_instead_of_hangs() {
        assert!(find(&chars("x"), &chars("[a"), 0, true, false).is_err());
        assert!(find(&chars("x"), &chars("%"), 0, true, false).is_err());
        let long: Vec<char> = "a".repeat(5000).chars().collect();
        let p = chars(".-.-.-.-.-b");
        assert_eq!(
            find(&long, &p, 0, true, false),
            Err(PatternError::TooComplex)
        );
    }
}
