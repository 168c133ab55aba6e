//! `{{#expr:…}}` and `{{#ifexpr:…}}`: ParserFunctions' expression language.
//!
//! Operators by binding strength (strongest first): unary `-` `+`, `e` (×10^);
//! the functions `not sin cos tan asin acos atan exp ln abs floor ceil trunc sqrt`; `^`;
//! `* / div mod fmod`; binary `+ -`; `round`; comparisons `= != <> < > <= >=`; `and`;
//! `or`. Operators of equal strength apply left to right. Literal numbers are floats;
//! `trunc`, `mod`, comparisons and logic give integers, as in PHP, which shows in how
//! large results print.

use super::php::float_to_string;

/// Why an expression has no value; the text is MediaWiki's (English) message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("Expression error: Stack exhausted.")]
    StackExhausted,
    #[error("Expression error: Unexpected number.")]
    UnexpectedNumber,
    #[error("Expression error: Unrecognized word \"{0}\".")]
    UnrecognisedWord(String),
    #[error("Expression error: Unexpected {0} operator.")]
    UnexpectedOperator(String),
    #[error("Expression error: Missing operand for {0}.")]
    MissingOperand(String),
    #[error("Expression error: Unexpected closing bracket.")]
    UnexpectedClosingBracket,
    #[error("Expression error: Unrecognized punctuation character \"{0}\".")]
    UnrecognisedPunctuation(char),
    #[error("Expression error: Unclosed bracket.")]
    UnclosedBracket,
    #[error("Division by zero.")]
    DivisionByZero,
    #[error("Invalid argument for {0}: less than -1 or greater than 1.")]
    InvalidArgument(String),
    #[error("Invalid argument for ln: less than or equal to 0.")]
    InvalidArgumentLn,
    #[error("In {0}: Result is not a number.")]
    NotANumber(String),
}

impl ExprError {
    /// ParserFunctions' message key and parameter for this error: how it is written in
    /// the content language (see `messages.rs`); [`Display`](std::fmt::Display) gives
    /// the English.
    pub(crate) fn message_key(&self) -> (&'static str, Option<String>) {
        use ExprError::*;
        match self {
            StackExhausted => ("pfunc_expr_stack_exhausted", None),
            UnexpectedNumber => ("pfunc_expr_unexpected_number", None),
            UnrecognisedWord(w) => ("pfunc_expr_unrecognised_word", Some(w.clone())),
            UnexpectedOperator(o) => ("pfunc_expr_unexpected_operator", Some(o.clone())),
            MissingOperand(o) => ("pfunc_expr_missing_operand", Some(o.clone())),
            UnexpectedClosingBracket => ("pfunc_expr_unexpected_closing_bracket", None),
            UnrecognisedPunctuation(c) => {
                ("pfunc_expr_unrecognised_punctuation", Some(c.to_string()))
            }
            UnclosedBracket => ("pfunc_expr_unclosed_bracket", None),
            DivisionByZero => ("pfunc_expr_division_by_zero", None),
            InvalidArgument(f) => ("pfunc_expr_invalid_argument", Some(f.clone())),
            InvalidArgumentLn => ("pfunc_expr_invalid_argument_ln", None),
            NotANumber(f) => ("pfunc_expr_not_a_number", Some(f.clone())),
        }
    }
}

/// A value: PHP keeps integers and floats apart.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// PHP's `(int)` cast: truncation, wrapping outside the 64-bit range, 0 for NaN/INF.
    fn int(self) -> i64 {
        match self {
            Num::Int(i) => i,
            Num::Float(f) if !f.is_finite() => 0,
            Num::Float(f) => {
                let t = f.trunc();
                if t.abs() < 9.2e18 {
                    t as i64
                } else {
                    (t.rem_euclid(18_446_744_073_709_551_616.0) as u64) as i64
                }
            }
        }
    }

    fn truthy(self) -> bool {
        match self {
            Num::Int(i) => i != 0,
            Num::Float(f) => f != 0.0,
        }
    }

    fn to_php_string(self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => float_to_string(f),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Neg,
    Pos,
    Exponent,
    Not,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Exp,
    Ln,
    Abs,
    Floor,
    Trunc,
    Ceil,
    Sqrt,
    Pow,
    Times,
    Divide,
    Mod,
    Fmod,
    Plus,
    Minus,
    Round,
    Eq,
    Lt,
    Gt,
    Le,
    Ge,
    Ne,
    And,
    Or,
    Open,
}

impl Op {
    fn precedence(self) -> i32 {
        use Op::*;
        match self {
            Neg | Pos | Exponent => 10,
            Not | Sin | Cos | Tan | Asin | Acos | Atan | Exp | Ln | Abs | Floor | Trunc | Ceil
            | Sqrt => 9,
            Pow => 8,
            Times | Divide | Mod | Fmod => 7,
            Plus | Minus => 6,
            Round => 5,
            Eq | Lt | Gt | Le | Ge | Ne => 4,
            And => 3,
            Or => 2,
            Open => -1,
        }
    }

    fn name(self) -> &'static str {
        use Op::*;
        match self {
            Neg | Minus => "-",
            Pos | Plus => "+",
            Exponent => "e",
            Not => "not",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Exp => "exp",
            Ln => "ln",
            Abs => "abs",
            Floor => "floor",
            Trunc => "trunc",
            Ceil => "ceil",
            Sqrt => "sqrt",
            Pow => "^",
            Times => "*",
            Divide => "/",
            Mod => "mod",
            Fmod => "fmod",
            Round => "round",
            Eq => "=",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Ne => "<>",
            And => "and",
            Or => "or",
            Open => "(",
        }
    }

    fn unary(self) -> bool {
        use Op::*;
        matches!(
            self,
            Neg | Pos
                | Not
                | Sin
                | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Exp
                | Ln
                | Abs
                | Floor
                | Trunc
                | Ceil
                | Sqrt
        )
    }
}

/// Deepest operand or operator stack allowed.
const MAX_STACK: usize = 100;

fn int_or_float(v: Option<i64>, f: f64) -> Num {
    match v {
        Some(i) => Num::Int(i),
        None => Num::Float(f),
    }
}

fn apply(op: Op, stack: &mut Vec<Num>) -> Result<(), ExprError> {
    let missing = || ExprError::MissingOperand(op.name().to_string());
    if op.unary() {
        let a = stack.pop().ok_or_else(missing)?;
        let r = match op {
            Op::Neg => match a {
                Num::Int(i) => int_or_float(i.checked_neg(), -(i as f64)),
                Num::Float(f) => Num::Float(-f),
            },
            Op::Pos => a,
            Op::Not => Num::Int(!a.truthy() as i64),
            Op::Sin => Num::Float(a.f().sin()),
            Op::Cos => Num::Float(a.f().cos()),
            Op::Tan => Num::Float(a.f().tan()),
            Op::Asin | Op::Acos => {
                let x = a.f();
                if !(-1.0..=1.0).contains(&x) {
                    return Err(ExprError::InvalidArgument(op.name().to_string()));
                }
                Num::Float(if op == Op::Asin { x.asin() } else { x.acos() })
            }
            Op::Atan => Num::Float(a.f().atan()),
            Op::Exp => Num::Float(a.f().exp()),
            Op::Ln => {
                let x = a.f();
                if x <= 0.0 {
                    return Err(ExprError::InvalidArgumentLn);
                }
                Num::Float(x.ln())
            }
            Op::Abs => match a {
                Num::Int(i) => int_or_float(i.checked_abs(), (i as f64).abs()),
                Num::Float(f) => Num::Float(f.abs()),
            },
            Op::Floor => Num::Float(a.f().floor()),
            Op::Ceil => Num::Float(a.f().ceil()),
            Op::Trunc => Num::Int(a.int()),
            Op::Sqrt => {
                let r = a.f().sqrt();
                if r.is_nan() {
                    return Err(ExprError::NotANumber(op.name().to_string()));
                }
                Num::Float(r)
            }
            _ => return Err(missing()),
        };
        stack.push(r);
        return Ok(());
    }
    if stack.len() < 2 {
        return Err(missing());
    }
    let b = stack.pop().ok_or_else(missing)?;
    let a = stack.pop().ok_or_else(missing)?;
    let both_int = |a: Num, b: Num| match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some((x, y)),
        _ => None,
    };
    let cmp = |r: bool| Num::Int(r as i64);
    let r = match op {
        Op::Plus => match both_int(a, b) {
            Some((x, y)) => int_or_float(x.checked_add(y), x as f64 + y as f64),
            None => Num::Float(a.f() + b.f()),
        },
        Op::Minus => match both_int(a, b) {
            Some((x, y)) => int_or_float(x.checked_sub(y), x as f64 - y as f64),
            None => Num::Float(a.f() - b.f()),
        },
        Op::Times => match both_int(a, b) {
            Some((x, y)) => int_or_float(x.checked_mul(y), x as f64 * y as f64),
            None => Num::Float(a.f() * b.f()),
        },
        Op::Divide => {
            if !b.truthy() {
                return Err(ExprError::DivisionByZero);
            }
            match both_int(a, b) {
                Some((x, y)) if x.checked_rem(y) == Some(0) => Num::Int(x / y),
                _ => Num::Float(a.f() / b.f()),
            }
        }
        Op::Mod => {
            let (x, y) = (a.int(), b.int());
            if y == 0 {
                return Err(ExprError::DivisionByZero);
            }
            Num::Int(x.wrapping_rem(y))
        }
        Op::Fmod => {
            if b.f() == 0.0 {
                return Err(ExprError::DivisionByZero);
            }
            Num::Float(a.f() % b.f())
        }
        Op::Pow => match both_int(a, b) {
            Some((x, y)) if (0..=u32::MAX as i64).contains(&y) => {
                int_or_float(x.checked_pow(y as u32), (x as f64).powf(y as f64))
            }
            _ => Num::Float(a.f().powf(b.f())),
        },
        Op::Exponent => Num::Float(a.f() * 10f64.powf(b.f())),
        Op::Round => Num::Float(php_round(a.f(), b.int())),
        Op::Eq => cmp(a.f() == b.f()),
        Op::Ne => cmp(a.f() != b.f()),
        Op::Lt => cmp(a.f() < b.f()),
        Op::Gt => cmp(a.f() > b.f()),
        Op::Le => cmp(a.f() <= b.f()),
        Op::Ge => cmp(a.f() >= b.f()),
        Op::And => cmp(a.truthy() && b.truthy()),
        Op::Or => cmp(a.truthy() || b.truthy()),
        _ => return Err(missing()),
    };
    stack.push(r);
    Ok(())
}

/// PHP's `round($value, $places)`: half away from zero, on the value as printed with
/// 15 significant digits (so that `round(1.005, 2)` is 1.01 as PHP gives).
fn php_round(value: f64, places: i64) -> f64 {
    if !value.is_finite() {
        return value;
    }
    let places = places.clamp(-308, 308) as i32;
    let f = 10f64.powi(places.abs());
    let scaled = if places >= 0 { value * f } else { value / f };
    if !scaled.is_finite() {
        return value;
    }
    let pre: f64 = format!("{scaled:.15e}").parse().unwrap_or(scaled);
    let r = pre.round();
    let out = if places >= 0 { r / f } else { r * f };
    if out.is_finite() { out } else { value }
}

/// Evaluates an expression; empty input gives empty output.
pub fn evaluate(expr: &str) -> Result<String, ExprError> {
    Ok(evaluate_values(expr)?
        .iter()
        .map(|n| n.to_php_string())
        .collect::<Vec<_>>()
        .join("<br />\n"))
}

/// Whether an expression is true for `{{#ifexpr:…}}`: an empty expression is false.
pub(crate) fn truthy(expr: &str) -> Result<bool, ExprError> {
    let v = evaluate_values(expr)?;
    Ok(match v.as_slice() {
        [] => false,
        [n] => n.truthy(),
        _ => true,
    })
}

/// The values left after evaluation (one for any well-formed expression, none for an
/// empty one).
fn evaluate_values(expr: &str) -> Result<Vec<Num>, ExprError> {
    let expr = expr
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&minus;", "-")
        .replace('\u{2212}', "-");
    let b = expr.as_bytes();
    let mut operands: Vec<Num> = Vec::new();
    let mut operators: Vec<Op> = Vec::new();
    let mut expecting_operand = true;
    let mut p = 0;
    while p < b.len() {
        if operands.len() > MAX_STACK || operators.len() > MAX_STACK {
            return Err(ExprError::StackExhausted);
        }
        let c = b[p];
        let op;
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            p += 1;
            continue;
        } else if c.is_ascii_digit() || c == b'.' {
            if !expecting_operand {
                return Err(ExprError::UnexpectedNumber);
            }
            let len = b[p..]
                .iter()
                .take_while(|x| x.is_ascii_digit() || **x == b'.')
                .count();
            operands.push(Num::Float(leading_float(&expr[p..p + len])));
            p += len;
            expecting_operand = false;
            continue;
        } else if c.is_ascii_alphabetic() {
            let len = b[p..]
                .iter()
                .take_while(|x| x.is_ascii_alphabetic())
                .count();
            let word = expr[p..p + len].to_ascii_lowercase();
            p += len;
            let w = match word.as_str() {
                "mod" => Op::Mod,
                "fmod" => Op::Fmod,
                "and" => Op::And,
                "or" => Op::Or,
                "not" => Op::Not,
                "round" => Op::Round,
                "div" => Op::Divide,
                "e" => Op::Exponent,
                "sin" => Op::Sin,
                "cos" => Op::Cos,
                "tan" => Op::Tan,
                "asin" => Op::Asin,
                "acos" => Op::Acos,
                "atan" => Op::Atan,
                "exp" => Op::Exp,
                "ln" => Op::Ln,
                "abs" => Op::Abs,
                "trunc" => Op::Trunc,
                "floor" => Op::Floor,
                "ceil" => Op::Ceil,
                "sqrt" => Op::Sqrt,
                "pi" => {
                    if !expecting_operand {
                        return Err(ExprError::UnexpectedNumber);
                    }
                    operands.push(Num::Float(std::f64::consts::PI));
                    expecting_operand = false;
                    continue;
                }
                _ => return Err(ExprError::UnrecognisedWord(word)),
            };
            if w == Op::Exponent && expecting_operand {
                // `e` where a number is expected is Euler's number.
                operands.push(Num::Float(std::f64::consts::E));
                expecting_operand = false;
                continue;
            }
            if w.unary() {
                if !expecting_operand {
                    return Err(ExprError::UnexpectedOperator(word));
                }
                operators.push(w);
                continue;
            }
            op = w;
        } else if b[p..].starts_with(b"<=") {
            op = Op::Le;
            p += 2;
        } else if b[p..].starts_with(b">=") {
            op = Op::Ge;
            p += 2;
        } else if b[p..].starts_with(b"<>") || b[p..].starts_with(b"!=") {
            op = Op::Ne;
            p += 2;
        } else if c == b'+' || c == b'-' {
            p += 1;
            if expecting_operand {
                operators.push(if c == b'+' { Op::Pos } else { Op::Neg });
                continue;
            }
            op = if c == b'+' { Op::Plus } else { Op::Minus };
        } else if c == b'*' || c == b'/' || c == b'^' || c == b'=' || c == b'<' || c == b'>' {
            op = match c {
                b'*' => Op::Times,
                b'/' => Op::Divide,
                b'^' => Op::Pow,
                b'=' => Op::Eq,
                b'<' => Op::Lt,
                _ => Op::Gt,
            };
            p += 1;
        } else if c == b'(' {
            if !expecting_operand {
                return Err(ExprError::UnexpectedOperator("(".to_string()));
            }
            operators.push(Op::Open);
            p += 1;
            continue;
        } else if c == b')' {
            loop {
                match operators.last() {
                    Some(Op::Open) => {
                        operators.pop();
                        break;
                    }
                    Some(&o) => {
                        apply(o, &mut operands)?;
                        operators.pop();
                    }
                    None => return Err(ExprError::UnexpectedClosingBracket),
                }
            }
            expecting_operand = false;
            p += 1;
            continue;
        } else {
            let ch = expr[p..].chars().next().unwrap_or('?');
            return Err(ExprError::UnrecognisedPunctuation(ch));
        }
        // A binary operator.
        if expecting_operand {
            return Err(ExprError::UnexpectedOperator(op.name().to_string()));
        }
        while let Some(&last) = operators.last() {
            if last == Op::Open || op.precedence() > last.precedence() {
                break;
            }
            apply(last, &mut operands)?;
            operators.pop();
        }
        operators.push(op);
        expecting_operand = true;
    }
    while let Some(op) = operators.pop() {
        if op == Op::Open {
            return Err(ExprError::UnclosedBracket);
        }
        apply(op, &mut operands)?;
    }
    Ok(operands)
}

/// PHP's `(float)` of a run of digits and dots: the longest valid prefix ("1.2.3" → 1.2).
fn leading_float(s: &str) -> f64 {
    let mut end = 0;
    let mut dot = false;
    for (i, c) in s.char_indices() {
        if c == '.' {
            if dot {
                break;
            }
            dot = true;
        }
        end = i + 1;
    }
    s[..end].parse().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> String {
        match evaluate(s) {
            Ok(v) => v,
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(e("1 + 2 * 3"), "7");
        assert_eq!(e("(1 + 2) * 3"), "9");
        assert_eq!(e("2 ^ 3 ^ 2"), "64");
        assert_eq!(e("-2 ^ 2"), "4");
        assert_eq!(e("7 / 2"), "3.5");
        assert_eq!(e("7 div 2"), "3.5");
        assert_eq!(e("7 mod 3"), "1");
        assert_eq!(e("-7 mod 3"), "-1");
        assert_eq!(e("7.9 mod 3"), "1");
        assert_eq!(e("5.5 fmod 2"), "1.5");
        assert_eq!(e("1/3"), "0.33333333333333");
        assert_eq!(e("2e3"), "2000");
        assert_eq!(e("e"), "2.718281828459");
        assert_eq!(e("pi"), "3.1415926535898");
        assert_eq!(e("3.14159 round 2"), "3.14");
        assert_eq!(e("1234.5 round -2"), "1200");
        assert_eq!(e("2.5 round 0"), "3");
        assert_eq!(e("-2.5 round 0"), "-3");
        assert_eq!(e("1 + 2 round 1"), "3");
        assert_eq!(e(""), "");
        assert_eq!(e("1e20"), "1.0E+20");
        assert_eq!(e("trunc 1e10 * 1e5"), "1.0E+15");
        assert_eq!(e("trunc 1e15"), "1000000000000000");
    }

    #[test]
    fn functions_comparisons_and_logic() {
        assert_eq!(e("abs -3"), "3");
        assert_eq!(e("floor 2.7 + ceil 2.2"), "5");
        assert_eq!(e("trunc -2.7"), "-2");
        assert_eq!(e("sqrt 16"), "4");
        assert_eq!(e("ln exp 2"), "2");
        assert_eq!(e("sin 0"), "0");
        assert_eq!(e("not 0"), "1");
        assert_eq!(e("3 > 2 and 2 > 3"), "0");
        assert_eq!(e("3 > 2 or 2 > 3"), "1");
        assert_eq!(e("2 != 3"), "1");
        assert_eq!(e("2 <> 2"), "0");
        assert_eq!(e("1 &lt; 2"), "1");
        assert_eq!(e("1 = 1.0"), "1");
        assert_eq!(e("−5 + 1"), "-4");
    }

    #[test]
    fn errors_have_mediawiki_messages() {
        assert_eq!(e("1 / 0"), "Division by zero.");
        assert_eq!(e("foo"), "Expression error: Unrecognized word \"foo\".");
        assert_eq!(e("1 2"), "Expression error: Unexpected number.");
        assert_eq!(e("(1"), "Expression error: Unclosed bracket.");
        assert_eq!(e("1)"), "Expression error: Unexpected closing bracket.");
        assert_eq!(e("* 2"), "Expression error: Unexpected * operator.");
        assert_eq!(e("1 +"), "Expression error: Missing operand for +.");
        assert_eq!(
            e("1 # 2"),
            "Expression error: Unrecognized punctuation character \"#\"."
        );
        assert_eq!(
            e("ln 0"),
            "Invalid argument for ln: less than or equal to 0."
        );
        assert_eq!(e("sqrt -1"), "In sqrt: Result is not a number.");
        assert_eq!(
            e("asin 2"),
            "Invalid argument for asin: less than -1 or greater than 1."
        );
    }
}
