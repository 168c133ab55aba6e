//! The staged-rows reader (CSV and JSON lines) on arbitrary bytes: rows or per-row
//! errors, never a panic or an endless loop.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikiwit::audit::rows::{Format, RowItem, RowReader};

fuzz_target!(|data: &[u8]| {
    for format in [Format::Csv, Format::Jsonl] {
        let Ok(mut r) = RowReader::new(data, format) else { continue };
        let mut batches = 0;
        loop {
            match r.batch(64) {
                Ok(items) if items.is_empty() => break,
                Ok(items) => {
                    for item in items {
                        if let RowItem::Row(row) = item {
                            for v in row.values.values() {
                                let _ = v.joined(" | ");
                            }
                        }
                    }
                }
                Err(_) => break,
            }
            batches += 1;
            assert!(batches <= data.len() + 1, "the reader does not advance");
        }
    }
});
