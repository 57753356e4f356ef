//! nanoid (<https://github.com/ai/nanoid>): random text ids over any alphabet, without modulo bias.

use crate::sqlstate::{SqlError, SqlState};
use rand::Rng;

/// nanoid's standard URL-safe alphabet (64 symbols).
pub const DEFAULT_ALPHABET: &str =
    "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";
pub const DEFAULT_SIZE: i32 = 21;
pub const MAX_SIZE: i32 = 1 << 20;
pub const MAX_SYMBOLS: usize = 255;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NanoidError {
    #[error("nanoid size must be between 1 and {max}, not {size}")]
    Size { size: i32, max: i32 },
    #[error("nanoid alphabet must not be empty")]
    EmptyAlphabet,
    #[error("nanoid alphabet has {count} symbols; at most {max} are allowed")]
    TooManySymbols { count: usize, max: usize },
    #[error("nanoid alphabet has the symbol \"{symbol}\" more than once")]
    DuplicateSymbol { symbol: char },
}

/// A validated alphabet: distinct symbols (Unicode characters), 1 to 255 of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alphabet {
    text: String,
    symbols: Vec<char>,
    /// The smallest all-ones mask covering every symbol index (2^k - 1).
    mask: u8,
    ascii: bool,
}

impl Alphabet {
    pub fn parse(text: &str) -> Result<Self, NanoidError> {
        let symbols: Vec<char> = text.chars().collect();
        if symbols.is_empty() {
            return Err(NanoidError::EmptyAlphabet);
        }
        if symbols.len() > MAX_SYMBOLS {
            return Err(NanoidError::TooManySymbols {
                count: symbols.len(),
                max: MAX_SYMBOLS,
            });
        }
        let mut seen = std::collections::HashSet::with_capacity(symbols.len());
        if let Some(&symbol) = symbols.iter().find(|c| !seen.insert(**c)) {
            return Err(NanoidError::DuplicateSymbol { symbol });
        }
        let mask = (symbols.len().next_power_of_two() - 1) as u8;
        Ok(Alphabet {
            text: text.to_owned(),
            ascii: text.is_ascii(),
            symbols,
            mask,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }
}

pub fn check_size(size: i32) -> Result<usize, NanoidError> {
    if !(1..=MAX_SIZE).contains(&size) {
        return Err(NanoidError::Size {
            size,
            max: MAX_SIZE,
        });
    }
    Ok(size as usize)
}

/// `size` symbols drawn uniformly from `alphabet`: each random byte is masked to the next power
/// of two and rejected when it falls outside the alphabet, so no symbol is favoured.
pub fn generate(alphabet: &Alphabet, size: usize, rng: &mut impl Rng) -> String {
    let mut out = Vec::with_capacity(if alphabet.ascii { size } else { size * 4 });
    generate_into(alphabet, size, rng, &mut out);
    String::from_utf8(out).expect("symbols are chars")
}

/// [`generate`], appending the UTF-8 bytes to `out`.
pub fn generate_into(alphabet: &Alphabet, size: usize, rng: &mut impl Rng, out: &mut Vec<u8>) {
    let n = alphabet.len();
    let mut buf = [0u8; 64];
    // Expected bytes per accepted symbol is (mask + 1) / n < 2; ask for a little more than that.
    let per_round = ((size * (alphabet.mask as usize + 1)).div_ceil(n) + 2).min(buf.len());
    let bytes = alphabet.text.as_bytes();
    let mut remaining = size;
    out.reserve(if alphabet.ascii { size } else { size * 4 });
    if alphabet.ascii && n == alphabet.mask as usize + 1 {
        // A power-of-two alphabet (like the default 64 symbols): every masked byte is a symbol.
        while remaining > 0 {
            let chunk = &mut buf[..remaining.min(64)];
            rng.fill_bytes(chunk);
            out.extend(chunk.iter().map(|&b| bytes[(b & alphabet.mask) as usize]));
            remaining -= chunk.len();
        }
        return;
    }
    while remaining > 0 {
        let chunk = &mut buf[..per_round];
        rng.fill_bytes(chunk);
        for &b in chunk.iter() {
            let i = (b & alphabet.mask) as usize;
            if i < n {
                if alphabet.ascii {
                    out.push(bytes[i]);
                } else {
                    let mut utf8 = [0u8; 4];
                    out.extend_from_slice(alphabet.symbols[i].encode_utf8(&mut utf8).as_bytes());
                }
                remaining -= 1;
                if remaining == 0 {
                    break;
                }
            }
        }
    }
}

impl SqlError for NanoidError {
    fn sqlstate(&self) -> SqlState {
        SqlState::InvalidParameterValue
    }
}

#[cfg(test)]
mod unit_tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn default_alphabet_is_64_distinct_symbols() {
        let a = Alphabet::parse(DEFAULT_ALPHABET).unwrap();
        assert_eq!(a.len(), 64);
        assert_eq!(a.mask, 63);
    }

    #[test]
    fn errors() {
        assert_eq!(
            check_size(0),
            Err(NanoidError::Size {
                size: 0,
                max: MAX_SIZE
            })
        );
        assert_eq!(Alphabet::parse(""), Err(NanoidError::EmptyAlphabet));
        assert_eq!(
            Alphabet::parse("abca"),
            Err(NanoidError::DuplicateSymbol { symbol: 'a' })
        );
        let big: String = (0..256u32)
            .map(|i| char::from_u32(0x100 + i).unwrap())
            .collect();
        assert_eq!(
            Alphabet::parse(&big),
            Err(NanoidError::TooManySymbols {
                count: 256,
                max: 255
            })
        );
        let ok: String = (0..255u32)
            .map(|i| char::from_u32(0x100 + i).unwrap())
            .collect();
        assert!(Alphabet::parse(&ok).is_ok());
    }

    #[test]
    fn sizes_and_unicode() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let a = Alphabet::parse("αβγ").unwrap();
        let id = generate(&a, 50, &mut rng);
        assert_eq!(id.chars().count(), 50);
        assert!(id.chars().all(|c| "αβγ".contains(c)));
        let one = Alphabet::parse("x").unwrap();
        assert_eq!(generate(&one, 5, &mut rng), "xxxxx");
    }

    #[test]
    fn uniform_over_an_awkward_alphabet() {
        // 37 symbols: a modulo would favour the first 256 % 37 = 34 symbols by 1/6.
        let text: String = "0123456789abcdefghijklmnopqrstuvwxyz_".into();
        let a = Alphabet::parse(&text).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut counts = std::collections::HashMap::new();
        let total = 200_000;
        for _ in 0..total / 20 {
            for c in generate(&a, 20, &mut rng).chars() {
                *counts.entry(c).or_insert(0usize) += 1;
            }
        }
        let expected = total as f64 / 37.0;
        for c in text.chars() {
            let got = counts[&c] as f64;
            assert!(
                (got - expected).abs() / expected < 0.05,
                "{c}: {got} vs {expected}"
            );
        }
    }
}
