//! What Lua 5.1's own pattern matcher (`string.find`, `match`, `gmatch`, `gsub`, in C)
//! will spend on a call, counted before the call is made, so that its backtracking is
//! charged to the page's instruction budget: in C it runs no VM instruction, and
//! `('a'):rep(5000):find(('a-'):rep(20) .. 'b')` would run for minutes unseen.
//!
//! [`steps`] walks the subject with the same algorithm as `lstrlib.c` (greedy and lazy
//! repetition, optional items, captures and back-references, `%b`, `%f`, anchors; C
//! locale classes) and counts one step per attempt of the matcher and per character a
//! repetition reads, stopping as soon as the count passes its limit, so the estimate
//! itself never costs more than the budget it protects. The count depends only on the
//! subject and the pattern: the same on every machine. A malformed pattern ends the
//! count where C raises its error (the call then raises it).

/// Which library function the count is for: how it moves along the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// `find`/`match`: from `init` to the first match (`^` anchors).
    First,
    /// `gmatch`: every match (`^` is a literal character there in Lua 5.1).
    All,
    /// `gsub`: up to `n` matches (`^` anchors).
    Replace(usize),
}

/// `LUA_MAXCAPTURES`.
const MAX_CAPTURES: usize = 32;
/// Capture lengths of a capture not yet closed and of a position capture.
const UNFINISHED: isize = -1;
const POSITION: isize = -2;

/// Why the walk stopped early.
enum Stop {
    /// The count passed its limit.
    Limit,
    /// The pattern is malformed; C raises the error.
    Malformed,
}

struct Walker<'a> {
    s: &'a [u8],
    p: &'a [u8],
    captures: Vec<(usize, isize)>,
    steps: u64,
    limit: u64,
}

/// The steps the matcher takes on `s` with pattern `p` from byte `init` (0-based), up to
/// `limit` (a count above it means "more than the limit").
pub(super) fn steps(s: &[u8], p: &[u8], init: usize, mode: Mode, limit: u64) -> u64 {
    // The pattern is a C string to the matcher: it ends at a NUL.
    let p = &p[..p.iter().position(|&b| b == 0).unwrap_or(p.len())];
    let mut w = Walker {
        s,
        p,
        captures: Vec::new(),
        steps: 0,
        limit,
    };
    let _ = w.scan(init.min(s.len()), mode);
    w.steps
}

impl Walker<'_> {
    /// One step; `Stop::Limit` past the limit.
    fn tick(&mut self, n: u64) -> Result<(), Stop> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limit {
            Err(Stop::Limit)
        } else {
            Ok(())
        }
    }

    /// The pattern's byte at `i`, 0 past its end (C reads the terminating NUL).
    fn pat(&self, i: usize) -> u8 {
        self.p.get(i).copied().unwrap_or(0)
    }

    /// The starting positions the library function tries, as `str_find_aux`,
    /// `gmatch_aux` and `str_gsub` advance them.
    fn scan(&mut self, mut at: usize, mode: Mode) -> Result<(), Stop> {
        let anchored = mode != Mode::All && self.pat(0) == b'^';
        let p0 = usize::from(anchored);
        let max = match mode {
            Mode::Replace(n) => n,
            _ => usize::MAX,
        };
        let mut found = 0;
        while found < max {
            self.captures.clear();
            let end = self.do_match(at, p0)?;
            if end.is_some() {
                found += 1;
                if mode == Mode::First {
                    return Ok(());
                }
            }
            match end {
                Some(e) if e > at => at = e,
                _ if at < self.s.len() => at += 1,
                _ => return Ok(()),
            }
            if anchored {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The end of the class item starting at `p` (`classEnd`).
    fn class_end(&self, p: usize) -> Result<usize, Stop> {
        match self.pat(p) {
            b'%' => {
                if p + 1 >= self.p.len() {
                    return Err(Stop::Malformed);
                }
                Ok(p + 2)
            }
            b'[' => {
                let mut q = p + 1;
                if self.pat(q) == b'^' {
                    q += 1;
                }
                loop {
                    if q >= self.p.len() {
                        return Err(Stop::Malformed);
                    }
                    let c = self.pat(q);
                    q += 1;
                    if c == b'%' && q < self.p.len() {
                        q += 1;
                    }
                    if self.pat(q) == b']' {
                        return Ok(q + 1);
                    }
                }
            }
            _ => Ok(p + 1),
        }
    }

    /// Whether byte `c` matches the single-character item `p..ep`.
    fn single(&self, c: u8, p: usize, ep: usize) -> bool {
        match self.pat(p) {
            b'.' => true,
            b'%' => class_matches(c, self.pat(p + 1)),
            b'[' => self.bracket(c, p, ep - 1),
            other => other == c,
        }
    }

    /// `matchbracketclass`: `p` at the `[`, `ec` at the `]`.
    fn bracket(&self, c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if self.pat(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        p += 1;
        while p < ec {
            let b = self.pat(p);
            if b == b'%' {
                p += 1;
                if class_matches(c, self.pat(p)) {
                    return sig;
                }
            } else if self.pat(p + 1) == b'-' && p + 2 < ec {
                if b <= c && c <= self.pat(p + 2) {
                    return sig;
                }
                p += 2;
            } else if b == c {
                return sig;
            }
            p += 1;
        }
        !sig
    }

    /// `match`: the end of a match of the pattern from `p` at subject position `s`.
    fn do_match(&mut self, mut s: usize, mut p: usize) -> Result<Option<usize>, Stop> {
        loop {
            self.tick(1)?;
            if p >= self.p.len() {
                return Ok(Some(s));
            }
            match self.pat(p) {
                b'(' => {
                    return if self.pat(p + 1) == b')' {
                        self.start_capture(s, p + 2, POSITION)
                    } else {
                        self.start_capture(s, p + 1, UNFINISHED)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'$' if p + 1 == self.p.len() => {
                    return Ok((s == self.s.len()).then_some(s));
                }
                b'%' if self.pat(p + 1) == b'b' => match self.balance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                        continue;
                    }
                    None => return Ok(None),
                },
                b'%' if self.pat(p + 1) == b'f' => {
                    p += 2;
                    if self.pat(p) != b'[' {
                        return Err(Stop::Malformed);
                    }
                    let ep = self.class_end(p)?;
                    let prev = if s == 0 { 0 } else { self.s[s - 1] };
                    let cur = self.s.get(s).copied().unwrap_or(0);
                    if self.bracket(prev, p, ep - 1) || !self.bracket(cur, p, ep - 1) {
                        return Ok(None);
                    }
                    p = ep;
                    continue;
                }
                b'%' if self.pat(p + 1).is_ascii_digit() => {
                    match self.back_reference(s, self.pat(p + 1))? {
                        Some(e) => {
                            s = e;
                            p += 2;
                            continue;
                        }
                        None => return Ok(None),
                    }
                }
                _ => {}
            }
            let ep = self.class_end(p)?;
            let m = s < self.s.len() && self.single(self.s[s], p, ep);
            match self.pat(ep) {
                b'?' => {
                    if m && let Some(e) = self.do_match(s + 1, ep + 1)? {
                        return Ok(Some(e));
                    }
                    p = ep + 1;
                }
                b'*' => return self.max_expand(s, p, ep),
                b'+' => {
                    return if m {
                        self.max_expand(s + 1, p, ep)
                    } else {
                        Ok(None)
                    };
                }
                b'-' => return self.min_expand(s, p, ep),
                _ => {
                    if !m {
                        return Ok(None);
                    }
                    s += 1;
                    p = ep;
                }
            }
        }
    }

    /// `max_expand`: as many repetitions as match, then back off one by one.
    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Result<Option<usize>, Stop> {
        let mut i = 0;
        while s + i < self.s.len() && self.single(self.s[s + i], p, ep) {
            i += 1;
        }
        self.tick(i as u64)?;
        loop {
            if let Some(e) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(e));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    /// `min_expand`: as few repetitions as let the rest match.
    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> Result<Option<usize>, Stop> {
        loop {
            if let Some(e) = self.do_match(s, ep + 1)? {
                return Ok(Some(e));
            }
            if s < self.s.len() && self.single(self.s[s], p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> Result<Option<usize>, Stop> {
        if self.captures.len() >= MAX_CAPTURES {
            return Err(Stop::Malformed);
        }
        self.captures.push((s, what));
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.captures.pop();
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Result<Option<usize>, Stop> {
        let Some(l) = self.captures.iter().rposition(|c| c.1 == UNFINISHED) else {
            return Err(Stop::Malformed);
        };
        let start = self.captures[l].0;
        self.captures[l].1 = (s - start) as isize;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.captures[l].1 = UNFINISHED;
        }
        Ok(r)
    }

    /// `%1`…`%9`: the text of a closed capture again.
    fn back_reference(&mut self, s: usize, digit: u8) -> Result<Option<usize>, Stop> {
        let l = usize::from(digit - b'0');
        let Some(&(start, len)) = l.checked_sub(1).and_then(|i| self.captures.get(i)) else {
            return Err(Stop::Malformed);
        };
        if len == UNFINISHED {
            return Err(Stop::Malformed);
        }
        let len = len.max(0) as usize;
        self.tick(len as u64 / 16)?;
        let same = self.s.len() - s >= len && self.s[start..start + len] == self.s[s..s + len];
        Ok(same.then_some(s + len))
    }

    /// `%bxy`: a balanced run from `x` to its `y`.
    fn balance(&mut self, s: usize, p: usize) -> Result<Option<usize>, Stop> {
        if p + 1 >= self.p.len() {
            return Err(Stop::Malformed);
        }
        let (open, close) = (self.pat(p), self.pat(p + 1));
        if self.s.get(s) != Some(&open) {
            return Ok(None);
        }
        let mut depth = 1;
        for (i, &c) in self.s.iter().enumerate().skip(s + 1) {
            if c == close {
                depth -= 1;
                if depth == 0 {
                    self.tick((i - s) as u64)?;
                    return Ok(Some(i + 1));
                }
            } else if c == open {
                depth += 1;
            }
        }
        self.tick((self.s.len() - s) as u64)?;
        Ok(None)
    }
}

/// `match_class` in the C locale.
fn class_matches(c: u8, class: u8) -> bool {
    let m = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return class == c,
    };
    if class.is_ascii_uppercase() { !m } else { m }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a call of pattern `p` on a subject of `len` bytes takes at most `free` steps
    /// whatever the subject holds, without walking it. A pattern with no repetition (`?`,
    /// `*`, `+`, `-`), no `%b`, `%f` or back-reference makes at most one step per pattern
    /// byte and one more from each start position, of which there are at most `len + 1`.
    /// This is the test `sandbox.lua` makes before it asks for [`steps`] (most calls on
    /// enwiki's CS1 articles pass it: 4.66 M of 5.70 M), written here to check its premise.
    fn surely_within(len: usize, p: &[u8], free: u64) -> bool {
        let bound = (len as u64 + 1).saturating_mul(p.len() as u64 + 1);
        bound <= free
            && !p.iter().any(|c| b"?*+-".contains(c))
            && !p
                .windows(2)
                .any(|w| w[0] == b'%' && (w[1] == b'b' || w[1] == b'f' || w[1].is_ascii_digit()))
    }

    #[test]
    fn ordinary_patterns_take_few_steps() {
        let s = b"Smith, John (2020). \"A title\". Journal. 12 (3): 45-67.";
        for p in [
            &b"^%s*(.-)%s*$"[..],
            b"%((%d%d%d%d)%)",
            b"[%a%d]+",
            b"%b()",
            b"%f[%w]%w+",
        ] {
            let n = steps(s, p, 0, Mode::All, u64::MAX);
            assert!(
                n > 0 && n < 5_000,
                "{} took {n}",
                String::from_utf8_lossy(p)
            );
        }
    }

    #[test]
    fn backtracking_is_counted_and_stops_at_the_limit() {
        let s = vec![b'a'; 5000];
        let p = [b"a-".repeat(20), b"b".to_vec()].concat();
        assert_eq!(steps(&s, &p, 0, Mode::First, 10_000_000), 10_000_001);
        // Cheap on a subject that ends the match early.
        assert!(steps(b"aab", &p, 0, Mode::First, u64::MAX) < 10_000);
    }

    /// `surely_within`'s bound, on every pattern of up to four items from an alphabet
    /// of items without repetition (classes, sets, captures, anchors, `.`) against
    /// subjects made to match them often, in every mode.
    #[test]
    fn patterns_without_repetition_take_one_step_per_byte_and_start() {
        let items: [&[u8]; 11] = [
            b"a", b".", b"%a", b"[ab]", b"[^b]", b"(", b")", b"()", b"^", b"$", b"%%",
        ];
        let subjects: [&[u8]; 4] = [b"", b"aaaa", b"abab%ab", b"ba(a)%$^"];
        let mut checked = 0;
        let mut pattern = Vec::new();
        let mut choice = [0usize; 4];
        for len in 1..=4 {
            choice[..len].fill(0);
            loop {
                pattern.clear();
                for &c in &choice[..len] {
                    pattern.extend_from_slice(items[c]);
                }
                for s in subjects {
                    for mode in [Mode::First, Mode::All, Mode::Replace(2)] {
                        for init in [0, 1] {
                            let bound = (s.len() as u64 + 1) * (pattern.len() as u64 + 1);
                            let n = steps(s, &pattern, init, mode, u64::MAX);
                            assert!(
                                n <= bound,
                                "{} on {} took {n} > {bound}",
                                String::from_utf8_lossy(&pattern),
                                String::from_utf8_lossy(s)
                            );
                            assert!(surely_within(s.len(), &pattern, bound));
                            checked += 1;
                        }
                    }
                }
                // The next choice of items, as an odometer.
                let mut i = 0;
                while i < len && choice[i] + 1 == items.len() {
                    choice[i] = 0;
                    i += 1;
                }
                if i == len {
                    break;
                }
                choice[i] += 1;
            }
        }
        assert!(checked > 100_000, "{checked}");
        // Repetitions and the escapes that walk the subject are never taken as bounded.
        for p in [&b"a*"[..], b"a-", b"a?", b"a+", b"%b()", b"%f[a]", b"(a)%1"] {
            assert!(
                !surely_within(1, p, u64::MAX),
                "{}",
                String::from_utf8_lossy(p)
            );
        }
    }

    #[test]
    fn malformed_patterns_end_the_count() {
        for p in [&b"%"[..], b"[a", b"%b", b"%f", b"(()", b"%1", b")"] {
            assert!(steps(b"abc", p, 0, Mode::All, 1000) <= 1000);
        }
    }
}
