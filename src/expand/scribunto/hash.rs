//! The Rust half of `mw.hash` (`hash.lua`): PHP's `hash()` over the algorithms PHP 8.2's
//! `hash_algos()` names, each through a maintained crate, hex digests written in the
//! byte order PHP writes them. `tests/data/scribunto/hash-php.jsonl` (from
//! `tools/hash-fixture.php`) pins every digest against the installed PHP.

use mlua::{Lua, Table, Value};
use sha2::Digest;

/// PHP 8.2's `hash_algos()`, in its order: what `mw.hash.listAlgorithms` returns.
const ALGORITHMS: [&str; 60] = [
    "md2",
    "md4",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512/224",
    "sha512/256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "ripemd128",
    "ripemd160",
    "ripemd256",
    "ripemd320",
    "whirlpool",
    "tiger128,3",
    "tiger160,3",
    "tiger192,3",
    "tiger128,4",
    "tiger160,4",
    "tiger192,4",
    "snefru",
    "snefru256",
    "gost",
    "gost-crypto",
    "adler32",
    "crc32",
    "crc32b",
    "crc32c",
    "fnv132",
    "fnv1a32",
    "fnv164",
    "fnv1a64",
    "joaat",
    "murmur3a",
    "murmur3c",
    "murmur3f",
    "xxh32",
    "xxh64",
    "xxh3",
    "xxh128",
    "haval128,3",
    "haval160,3",
    "haval192,3",
    "haval224,3",
    "haval256,3",
    "haval128,4",
    "haval160,4",
    "haval192,4",
    "haval224,4",
    "haval256,4",
    "haval128,5",
    "haval160,5",
    "haval192,5",
    "haval224,5",
    "haval256,5",
];

/// Registers `listAlgorithms()` and `hashValue(algo, value)` (digest, or `nil, message`)
/// on a new table `iface.hash`.
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let hash = lua.create_table()?;
    hash.set(
        "listAlgorithms",
        lua.create_function(|lua, ()| lua.create_sequence_from(ALGORITHMS))?,
    )?;
    hash.set(
        "hashValue",
        lua.create_function(|lua, (algo, value): (mlua::LuaString, mlua::LuaString)| {
            let algo = algo.to_string_lossy();
            match hash_value(&algo, &value.as_bytes()) {
                Ok(h) => Ok((Value::String(lua.create_string(&h)?), None)),
                Err(e) => Ok((Value::Nil, Some(e))),
            }
        })?,
    )?;
    iface.set("hash", hash)
}

/// Why an algorithm PHP lists has no implementation here.
fn unavailable(algo: &str) -> Option<&'static str> {
    if algo.starts_with("haval") || algo.starts_with("snefru") {
        Some("no maintained Rust implementation exists")
    } else if algo.starts_with("tiger") && algo.ends_with(",4") {
        Some("the maintained tiger crate has the 3-pass Tiger only")
    } else {
        None
    }
}

/// `hash($algo, $value)`: the lowercase hex digest, or the error Scribunto raises.
fn hash_value(algo: &str, value: &[u8]) -> Result<String, String> {
    if !ALGORITHMS.contains(&algo) {
        return Err(format!("Unknown hashing algorithm: {algo}"));
    }
    if let Some(why) = unavailable(algo) {
        return Err(format!(
            "mw.hash: the hashing algorithm {algo} is not available in wikiwit ({why})"
        ));
    }
    let bytes =
        digest_bytes(algo, value).ok_or_else(|| format!("Unknown hashing algorithm: {algo}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn of<D: Digest>(value: &[u8]) -> Vec<u8> {
    D::digest(value).to_vec()
}

/// The digest of the algorithms that have one here, as the bytes PHP prints.
fn digest_bytes(algo: &str, v: &[u8]) -> Option<Vec<u8>> {
    use crc::{CRC_32_BZIP2, CRC_32_ISCSI, CRC_32_ISO_HDLC, Crc};
    let tiger = |n: usize| of::<tiger::Tiger>(v)[..n].to_vec();
    Some(match algo {
        "md2" => of::<md2::Md2>(v),
        "md4" => of::<md4::Md4>(v),
        "md5" => of::<md5::Md5>(v),
        "sha1" => of::<sha1::Sha1>(v),
        "sha224" => of::<sha2::Sha224>(v),
        "sha256" => of::<sha2::Sha256>(v),
        "sha384" => of::<sha2::Sha384>(v),
        "sha512/224" => of::<sha2::Sha512_224>(v),
        "sha512/256" => of::<sha2::Sha512_256>(v),
        "sha512" => of::<sha2::Sha512>(v),
        "sha3-224" => of::<sha3::Sha3_224>(v),
        "sha3-256" => of::<sha3::Sha3_256>(v),
        "sha3-384" => of::<sha3::Sha3_384>(v),
        "sha3-512" => of::<sha3::Sha3_512>(v),
        "ripemd128" => of::<ripemd::Ripemd128>(v),
        "ripemd160" => of::<ripemd::Ripemd160>(v),
        "ripemd256" => of::<ripemd::Ripemd256>(v),
        "ripemd320" => of::<ripemd::Ripemd320>(v),
        "whirlpool" => of::<whirlpool::Whirlpool>(v),
        "tiger128,3" => tiger(16),
        "tiger160,3" => tiger(20),
        "tiger192,3" => tiger(24),
        "gost" => of::<gost94::Gost94Test>(v),
        "gost-crypto" => of::<gost94::Gost94CryptoPro>(v),
        "adler32" => {
            let mut a = adler2::Adler32::new();
            a.write_slice(v);
            a.checksum().to_be_bytes().to_vec()
        }
        // PHP writes the BZIP2 CRC's bytes least significant first.
        "crc32" => Crc::<u32>::new(&CRC_32_BZIP2)
            .checksum(v)
            .to_le_bytes()
            .to_vec(),
        "crc32b" => Crc::<u32>::new(&CRC_32_ISO_HDLC)
            .checksum(v)
            .to_be_bytes()
            .to_vec(),
        "crc32c" => Crc::<u32>::new(&CRC_32_ISCSI)
            .checksum(v)
            .to_be_bytes()
            .to_vec(),
        "fnv132" | "fnv1a32" => fnv32(v, algo == "fnv1a32").to_be_bytes().to_vec(),
        "fnv164" | "fnv1a64" => fnv64(v, algo == "fnv1a64").to_be_bytes().to_vec(),
        "joaat" => joaat(v).to_be_bytes().to_vec(),
        "murmur3a" => murmur3::murmur3_32(&mut &v[..], 0)
            .ok()?
            .to_be_bytes()
            .to_vec(),
        // The crate returns h1 in the low bits; PHP writes h1 first.
        "murmur3c" => {
            let x = murmur3::murmur3_x86_128(&mut &v[..], 0).ok()?;
            (0..4)
                .flat_map(|i| ((x >> (32 * i)) as u32).to_be_bytes())
                .collect()
        }
        "murmur3f" => {
            let x = murmur3::murmur3_x64_128(&mut &v[..], 0).ok()?;
            (0..2)
                .flat_map(|i| ((x >> (64 * i)) as u64).to_be_bytes())
                .collect()
        }
        "xxh32" => twox_hash::XxHash32::oneshot(0, v).to_be_bytes().to_vec(),
        "xxh64" => twox_hash::XxHash64::oneshot(0, v).to_be_bytes().to_vec(),
        "xxh3" => twox_hash::XxHash3_64::oneshot(v).to_be_bytes().to_vec(),
        "xxh128" => twox_hash::XxHash3_128::oneshot(v).to_be_bytes().to_vec(),
        _ => return None,
    })
}

/// FNV-1 (multiply, then xor) or FNV-1a (xor, then multiply), 32 bits. The `fnv` crate
/// has FNV-1a 64 only, and the algorithm is these two lines.
fn fnv32(v: &[u8], a: bool) -> u32 {
    v.iter().fold(0x811c_9dc5, |h: u32, &b| {
        if a {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        } else {
            h.wrapping_mul(0x0100_0193) ^ u32::from(b)
        }
    })
}

/// FNV-1 or FNV-1a, 64 bits.
fn fnv64(v: &[u8], a: bool) -> u64 {
    v.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &b| {
        if a {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        } else {
            h.wrapping_mul(0x0100_0000_01b3) ^ u64::from(b)
        }
    })
}

/// Bob Jenkins' one-at-a-time hash (PHP's `joaat`); no crate carries it.
fn joaat(v: &[u8]) -> u32 {
    let mut h = v.iter().fold(0u32, |h, &b| {
        let h = h.wrapping_add(u32::from(b));
        let h = h.wrapping_add(h << 10);
        h ^ (h >> 6)
    });
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every digest recorded from PHP 8.2 (`tools/hash-fixture.php`): equal for each
    /// algorithm implemented here, a clear error for the others.
    #[test]
    fn agrees_with_php() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/scribunto/hash-php.jsonl"
        );
        let fixture = std::fs::read_to_string(path).expect("fixture");
        let mut checked = 0;
        let mut unavailable_seen = 0;
        for line in fixture.lines() {
            let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
            let algo = case["algo"].as_str().expect("algo");
            let input: Vec<u8> = case["input"]
                .as_str()
                .expect("input")
                .as_bytes()
                .chunks(2)
                .map(|h| u8::from_str_radix(std::str::from_utf8(h).expect("hex"), 16).expect("hex"))
                .collect();
            let want = case["hash"].as_str().expect("hash");
            match hash_value(algo, &input) {
                Ok(got) => {
                    assert_eq!(got, want, "{algo} of {:?}", case["input"]);
                    checked += 1;
                }
                Err(e) => {
                    assert!(
                        unavailable(algo).is_some() && e.contains(algo),
                        "{algo}: {e}"
                    );
                    unavailable_seen += 1;
                }
            }
        }
        assert!(checked >= 40 * 4, "{checked} digests compared");
        assert!(unavailable_seen > 0);
    }

    #[test]
    fn list_is_php_82s_and_unknown_names_refused() {
        let fixture = include_str!("../../../tests/data/scribunto/hash-php.jsonl");
        let listed: Vec<&str> = fixture
            .lines()
            .filter_map(|l| l.split("\"algo\":\"").nth(1)?.split('"').next())
            .collect();
        let mut php_order = listed.clone();
        php_order.dedup();
        assert_eq!(php_order, ALGORITHMS);
        assert_eq!(
            hash_value("not-a-hashing-algorithm", b"abc"),
            Err("Unknown hashing algorithm: not-a-hashing-algorithm".to_string())
        );
    }
}
