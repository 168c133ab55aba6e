//! The export tables as Arrow record batches, and Parquet files written from them
//! (schema in `docs/parquet.md`): what pandas, Polars, DuckDB and Spark read directly.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::ExportError;
use super::rows::{self, Cell, ColumnType, Table};
use crate::index::Index;

/// Rows per record batch (and so per Parquet row group page run): large enough that
/// per-batch overhead vanishes, small enough that a batch of sentences stays a few MB.
pub(crate) const BATCH_ROWS: usize = 65_536;

/// The Arrow schema of `table`: its columns with their types and nullability.
pub fn schema(table: Table) -> SchemaRef {
    let fields: Vec<Field> = table
        .columns()
        .iter()
        .map(|c| {
            let ty = match c.ty {
                ColumnType::Int32 => DataType::Int32,
                ColumnType::Int64 => DataType::Int64,
                ColumnType::Bool => DataType::Boolean,
                ColumnType::Utf8 => DataType::Utf8,
            };
            Field::new(c.name, ty, c.nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// One column being filled.
enum Builder {
    Int32(Int32Builder),
    Int64(Int64Builder),
    Bool(BooleanBuilder),
    Utf8(StringBuilder),
}

impl Builder {
    fn new(ty: ColumnType) -> Builder {
        match ty {
            ColumnType::Int32 => Builder::Int32(Int32Builder::new()),
            ColumnType::Int64 => Builder::Int64(Int64Builder::new()),
            ColumnType::Bool => Builder::Bool(BooleanBuilder::new()),
            ColumnType::Utf8 => Builder::Utf8(StringBuilder::new()),
        }
    }

    /// Appends `cell`; a cell of another type than the column's is a bug in the table's
    /// walk, caught by the tests of every table.
    fn push(&mut self, cell: &Cell<'_>) -> Result<(), ExportError> {
        match (self, cell) {
            (Builder::Int32(b), Cell::Int(n)) => {
                let n = i32::try_from(*n).map_err(|_| {
                    arrow_schema::ArrowError::InvalidArgumentError(format!(
                        "{n} does not fit a 32-bit column"
                    ))
                })?;
                b.append_value(n);
            }
            (Builder::Int64(b), Cell::Int(n)) => b.append_value(*n),
            (Builder::Bool(b), Cell::Bool(v)) => b.append_value(*v),
            (Builder::Utf8(b), Cell::Str(s)) => b.append_value(s),
            (Builder::Int32(b), Cell::Null) => b.append_null(),
            (Builder::Int64(b), Cell::Null) => b.append_null(),
            (Builder::Bool(b), Cell::Null) => b.append_null(),
            (Builder::Utf8(b), Cell::Null) => b.append_null(),
            (_, c) => {
                return Err(arrow_schema::ArrowError::InvalidArgumentError(format!(
                    "a {c:?} cell in a column of another type"
                ))
                .into());
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Utf8(b) => Arc::new(b.finish()),
        }
    }
}

/// Walks `table` and hands `emit` record batches of at most `BATCH_ROWS` rows, in dump
/// order. An empty table yields no batch.
pub fn batches(
    index: &Index,
    table: Table,
    emit: &mut dyn FnMut(RecordBatch) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let schema = schema(table);
    let mut builders: Vec<Builder> = table.columns().iter().map(|c| Builder::new(c.ty)).collect();
    let mut n = 0usize;
    let flush = |builders: &mut Vec<Builder>,
                 emit: &mut dyn FnMut(RecordBatch) -> Result<(), ExportError>|
     -> Result<(), ExportError> {
        let arrays: Vec<ArrayRef> = builders.iter_mut().map(Builder::finish).collect();
        emit(RecordBatch::try_new(schema.clone(), arrays)?)
    };
    rows::walk(index, table, &mut |cells| {
        for (b, c) in builders.iter_mut().zip(cells) {
            b.push(c)?;
        }
        n += 1;
        if n == BATCH_ROWS {
            n = 0;
            flush(&mut builders, emit)?;
        }
        Ok(())
    })?;
    if n > 0 {
        flush(&mut builders, emit)?;
    }
    Ok(())
}

/// Writes `table` to a Parquet file at `path` (zstd level 3 column chunks), through a
/// temporary file renamed into place, so a failed export leaves no partial file. Returns
/// the number of rows written.
pub fn write_parquet(index: &Index, table: Table, path: &Path) -> Result<u64, ExportError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
        .build();
    let mut writer = ArrowWriter::try_new(tmp.reopen()?, schema(table), Some(props))?;
    let mut rows = 0u64;
    batches(index, table, &mut |b| {
        rows += b.num_rows() as u64;
        writer.write(&b)?;
        Ok(())
    })?;
    writer.close()?;
    // Temporary files are private; an export is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(rows)
}
