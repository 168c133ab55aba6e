//! `wikiwit._native`: the wikiwit library for Python. Every answer is the library's own
//! serde value turned into plain dicts and lists (the same fields as the CLI's `--json`);
//! every call releases the GIL while the library works, so Python threads (and Spark's
//! Python workers) query one memory-mapped index in parallel.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;
use wikiwit::index::IndexError;
use wikiwit::query::QueryError;

pyo3::create_exception!(
    wikiwit,
    WikiwitError,
    PyException,
    "Base class of every error wikiwit raises."
);
pyo3::create_exception!(
    wikiwit,
    NotFoundError,
    WikiwitError,
    "A title, section, table, row, infobox field or page the index does not have."
);
pyo3::create_exception!(
    wikiwit,
    IndexDataError,
    WikiwitError,
    "No index at the path, another format version, damaged data, an index built without what the call needs (--pages-only, --no-text), or the dump it was built from gone or changed (a page's wikitext is read from it)."
);
pyo3::create_exception!(
    wikiwit,
    InvalidInputError,
    WikiwitError,
    "An argument the library refuses: a bad locator, contract, table name, context, origin or operator."
);
pyo3::create_exception!(
    wikiwit,
    BuildError,
    WikiwitError,
    "A build that failed: unreadable or damaged dump, bad target directory; the previous index is untouched."
);
pyo3::create_exception!(
    wikiwit,
    AuditError,
    WikiwitError,
    "An audit that could not run: unreadable rows, a findings log that is an input, rows changed during the audit."
);

fn index_err(e: IndexError) -> PyErr {
    IndexDataError::new_err(e.to_string())
}

fn query_err(e: QueryError) -> PyErr {
    match e {
        QueryError::NotFound(m) => NotFoundError::new_err(m),
        QueryError::Index(e) => index_err(e),
        // A page's wikitext is read from the index's dump: gone or changed, the index
        // lacks what the call needs.
        e @ (QueryError::Search(_) | QueryError::Dump(_) | QueryError::DumpChanged { .. }) => {
            IndexDataError::new_err(e.to_string())
        }
    }
}

fn frontier_err(e: wikiwit::frontier::FrontierError) -> PyErr {
    if e.is_not_found() {
        NotFoundError::new_err(e.to_string())
    } else {
        WikiwitError::new_err(e.to_string())
    }
}

fn audit_err(e: wikiwit::audit::AuditError) -> PyErr {
    use wikiwit::audit::AuditError as E;
    match e {
        E::Contract(c) => InvalidInputError::new_err(c.to_string()),
        E::Index(i) => index_err(i),
        e => AuditError::new_err(e.to_string()),
    }
}

/// A serde value as Python objects.
fn py_value<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    v: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, v).map_err(|e| WikiwitError::new_err(e.to_string()))
}

/// An open index: memory-mapped, read-only, shareable across threads.
#[pyclass(frozen, module = "wikiwit._native")]
struct Index {
    inner: wikiwit::index::Index,
}

impl Index {
    /// The index, refusing a `--pages-only` one with the reason (as the CLI's page
    /// queries do).
    fn parsed(&self) -> PyResult<&wikiwit::index::Index> {
        self.inner.require_parsed().map_err(index_err)?;
        Ok(&self.inner)
    }
}

#[pymethods]
impl Index {
    /// Opens the index directory `path` (any index, `--pages-only` ones included).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py
            .detach(|| wikiwit::index::Index::open(&path))
            .map_err(index_err)?;
        Ok(Index { inner })
    }

    /// The index directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.dir().to_path_buf()
    }

    /// The manifest: source dump, build parameters, counts (as `wikiwit info --json`).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_value(py, self.inner.manifest())
    }

    /// Normalization, page, redirect chain and final target of a title.
    fn resolve<'py>(&self, py: Python<'py>, title: &str) -> PyResult<Bound<'py, PyAny>> {
        let r = py
            .detach(|| wikiwit::resolve::resolve(&self.inner, title))
            .map_err(index_err)?;
        py_value(py, &r)
    }

    /// A page's summary: sections, infobox, tables, categories, link counts.
    fn page<'py>(&self, py: Python<'py>, title: &str) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        let p = py
            .detach(|| wikiwit::query::summary(ix, title))
            .map_err(query_err)?;
        py_value(py, &p)
    }

    /// Links of a page (or, with `incoming=True`, the pages linking to it).
    #[pyo3(signature = (title, *, incoming = false, context = None, direct = false, origin = None))]
    fn links<'py>(
        &self,
        py: Python<'py>,
        title: &str,
        incoming: bool,
        context: Option<&str>,
        direct: bool,
        origin: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        use wikiwit::query::Origin;
        use wikiwit::wikitext::Context;
        let context = context
            .map(|c| {
                Context::parse(c).ok_or_else(|| {
                    InvalidInputError::new_err(format!(
                        "unknown context {c:?}: prose, list, table, infobox, template, ref, gallery or caption"
                    ))
                })
            })
            .transpose()?;
        let origin = origin
            .map(|o| {
                Origin::parse(o).ok_or_else(|| {
                    InvalidInputError::new_err(format!("unknown origin {o:?}: own or template"))
                })
            })
            .transpose()?;
        let ix = self.parsed()?;
        if incoming {
            let l = py
                .detach(|| wikiwit::query::inlinks(ix, title, context, direct, origin))
                .map_err(query_err)?;
            return py_value(py, &l);
        }
        let l = py
            .detach(|| wikiwit::query::outlinks(ix, title, context, origin))
            .map_err(query_err)?;
        py_value(py, &l)
    }

    /// `{"title", "sections": [...]}`: level, number, anchor, byte ranges.
    fn sections<'py>(&self, py: Python<'py>, title: &str) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        let (p, s) = py
            .detach(|| {
                let p = wikiwit::query::find_page(ix, title)?;
                let s = wikiwit::query::structure(ix, &p)?;
                Ok((p, s))
            })
            .map_err(query_err)?;
        py_value(
            py,
            &serde_json::json!({ "title": p.title, "sections": s.sections }),
        )
    }

    /// Table `n` (1-based) of a page, or with `row`, one data row (0-based).
    #[pyo3(signature = (title, n, row = None))]
    fn table<'py>(
        &self,
        py: Python<'py>,
        title: &str,
        n: usize,
        row: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        match row {
            Some(r) => {
                let v = py
                    .detach(|| wikiwit::query::table_row(ix, title, n, r))
                    .map_err(query_err)?;
                py_value(py, &v)
            }
            None => {
                let v = py
                    .detach(|| wikiwit::query::table(ix, title, n))
                    .map_err(query_err)?;
                py_value(py, &v)
            }
        }
    }

    /// The page's infoboxes (`[{"page", "template", "fields": [...]}]`), or with `field`
    /// one field (`{"page", "field", "text", "raw", "links"}`).
    #[pyo3(signature = (title, field = None))]
    fn infobox<'py>(
        &self,
        py: Python<'py>,
        title: &str,
        field: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        match field {
            Some(f) => {
                let v = py
                    .detach(|| wikiwit::query::infobox_field(ix, title, f))
                    .map_err(query_err)?;
                py_value(py, &v)
            }
            None => {
                let v = py
                    .detach(|| wikiwit::query::infobox_views(ix, title))
                    .map_err(query_err)?;
                py_value(py, &v)
            }
        }
    }

    /// Plain text of a page or of one section (by anchor), sentence by sentence.
    #[pyo3(signature = (title, section = None))]
    fn text<'py>(
        &self,
        py: Python<'py>,
        title: &str,
        section: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        let v = py
            .detach(|| wikiwit::query::text::text(ix, title, section))
            .map_err(query_err)?;
        py_value(py, &v)
    }

    /// Full-text search (BM25) with each hit's best sentence; `page` (and `section`)
    /// restrict it to one page (section).
    #[pyo3(signature = (query, *, page = None, section = None, limit = 10))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &str,
        page: Option<&str>,
        section: Option<&str>,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        if section.is_some() && page.is_none() {
            return Err(InvalidInputError::new_err("section needs page"));
        }
        let ix = self.parsed()?;
        let scope = wikiwit::query::text::Scope { page, section };
        let v = py
            .detach(|| wikiwit::query::text::search(ix, query, scope, limit))
            .map_err(query_err)?;
        py_value(py, &v)
    }

    /// What a locator points at (`{"locator", "status", ...}` as `wikiwit locate --json`):
    /// an unresolved locator is an answer with its reason, not an exception.
    fn locate<'py>(&self, py: Python<'py>, locator: &str) -> PyResult<Bound<'py, PyAny>> {
        let loc = wikiwit::locator::parse(locator)
            .map_err(|e| InvalidInputError::new_err(format!("{locator:?}: {e}")))?;
        let ix = self.parsed()?;
        let res = py
            .detach(|| wikiwit::locator::resolve(ix, &loc))
            .map_err(index_err)?;
        #[derive(serde::Serialize)]
        struct View<'a> {
            locator: &'a wikiwit::locator::Locator,
            #[serde(flatten)]
            resolution: &'a wikiwit::locator::Resolution,
        }
        py_value(
            py,
            &View {
                locator: &loc,
                resolution: &res,
            },
        )
    }

    /// Pages listed next to a page (sharing a table column, list or navigation template).
    #[pyo3(signature = (title, limit = 50))]
    fn siblings<'py>(
        &self,
        py: Python<'py>,
        title: &str,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        let v = py
            .detach(|| wikiwit::siblings::siblings(ix, title, limit))
            .map_err(query_err)?;
        py_value(py, &v)
    }

    /// The source frontier of a question over a seed page: pages with provenance, and
    /// the candidates rejected with why.
    #[pyo3(signature = (seed, query, *, table = None, ops = None, limit = 10, row_ratio = None))]
    #[allow(clippy::too_many_arguments)]
    fn frontier<'py>(
        &self,
        py: Python<'py>,
        seed: &str,
        query: &str,
        table: Option<usize>,
        ops: Option<Vec<String>>,
        limit: usize,
        row_ratio: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        use wikiwit::frontier::{Op, PlanOptions};
        let ops = match ops {
            None => Op::DEFAULT.to_vec(),
            Some(names) => names
                .iter()
                .map(|o| {
                    Op::parse(o.trim()).ok_or_else(|| {
                        let known: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
                        InvalidInputError::new_err(format!(
                            "unknown operator {o:?}; known: {}",
                            known.join(", ")
                        ))
                    })
                })
                .collect::<PyResult<_>>()?,
        };
        let ix = self.parsed()?;
        let opts = PlanOptions {
            seed: seed.to_string(),
            query: query.to_string(),
            table,
            ops,
            limit,
            row_ratio: row_ratio.unwrap_or(wikiwit::frontier::planner::ROW_RATIO),
            page_weight: wikiwit::frontier::planner::PAGE_WEIGHT,
            rules: wikiwit::frontier::Rules::default(),
        };
        let f = py
            .detach(|| wikiwit::frontier::plan(ix, &opts))
            .map_err(frontier_err)?;
        py_value(py, &f)
    }

    /// Audits the staged rows file `rows` (CSV or JSON lines) against the contract file
    /// `contract`, appending findings to `findings` (default: `ROWS.findings.jsonl`).
    /// Returns the summary (as `wikiwit audit --json`).
    #[pyo3(signature = (contract, rows, findings = None, threads = 0))]
    fn audit_files<'py>(
        &self,
        py: Python<'py>,
        contract: PathBuf,
        rows: PathBuf,
        findings: Option<PathBuf>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let log = findings.unwrap_or_else(|| {
            let mut s = rows.clone().into_os_string();
            s.push(".findings.jsonl");
            PathBuf::from(s)
        });
        let ix = self.parsed()?;
        let opts = wikiwit::audit::Options {
            threads,
            ..Default::default()
        };
        let s = py
            .detach(|| wikiwit::audit::audit(ix, &contract, &rows, &log, &opts))
            .map_err(audit_err)?;
        py_value(py, &s)
    }

    /// Checks the citations of a markdown report (its text) against the index; returns
    /// what `wikiwit cite check --json` prints.
    fn check_citations<'py>(&self, py: Python<'py>, markdown: &str) -> PyResult<Bound<'py, PyAny>> {
        let ix = self.parsed()?;
        let checked = py
            .detach(|| {
                let parsed = wikiwit::cite::parse::parse_report(markdown);
                let opts = wikiwit::cite::check::CheckOptions::default();
                wikiwit::cite::check::check_report(ix, markdown, &parsed, &opts)
            })
            .map_err(index_err)?;
        py_value(py, &checked)
    }

    /// An export table (`pages`, `redirects`, `links`, `categories`, `templates`,
    /// `sections`, `text`) as a list of `pyarrow.RecordBatch`es, handed over through the
    /// Arrow C data interface without copying the buffers.
    fn record_batches<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyList>> {
        use arrow_pyarrow::ToPyArrow;
        let t = wikiwit::export::Table::from_name(table).ok_or_else(|| {
            let known: Vec<&str> = wikiwit::export::Table::ALL
                .iter()
                .map(|t| t.name())
                .collect();
            InvalidInputError::new_err(format!(
                "unknown table {table:?}; known: {}",
                known.join(", ")
            ))
        })?;
        let ix = &self.inner;
        let batches = py
            .detach(|| {
                let mut out = Vec::new();
                wikiwit::export::arrow::batches(ix, t, &mut |b| {
                    out.push(b);
                    Ok(())
                })
                .map(|()| out)
            })
            .map_err(export_err)?;
        let list = PyList::empty(py);
        for b in &batches {
            list.append(b.to_pyarrow(py)?)?;
        }
        Ok(list)
    }

    /// The Arrow schema of an export table, as a `pyarrow.Schema` (also for empty tables).
    fn schema<'py>(&self, py: Python<'py>, table: &str) -> PyResult<Bound<'py, PyAny>> {
        use arrow_pyarrow::ToPyArrow;
        let t = wikiwit::export::Table::from_name(table)
            .ok_or_else(|| InvalidInputError::new_err(format!("unknown table {table:?}")))?;
        wikiwit::export::arrow::schema(t).as_ref().to_pyarrow(py)
    }

    /// Writes an export table as a Parquet file; returns the number of rows.
    fn write_parquet(&self, py: Python<'_>, table: &str, path: PathBuf) -> PyResult<u64> {
        let t = wikiwit::export::Table::from_name(table)
            .ok_or_else(|| InvalidInputError::new_err(format!("unknown table {table:?}")))?;
        py.detach(|| wikiwit::export::arrow::write_parquet(&self.inner, t, &path))
            .map_err(export_err)
    }
}

/// A contract validated once for an audit in pieces (one per Spark task): the row-level
/// checks run on any subset of rows, the table-level ones once over every row's summary.
#[pyclass(frozen, module = "wikiwit._native")]
struct PreparedAudit {
    inner: wikiwit::audit::Prepared,
}

#[pymethods]
impl PreparedAudit {
    /// `contract` is the contract file's bytes (JSON); `name` says where it came from,
    /// for errors; `audit_id` goes into every finding.
    #[new]
    fn new(contract: &[u8], name: &str, audit_id: String) -> PyResult<Self> {
        let c = wikiwit::audit::Contract::from_slice(contract, name)
            .map_err(|e| InvalidInputError::new_err(e.to_string()))?;
        let inner = wikiwit::audit::Prepared::new(c, name, audit_id)
            .map_err(|e| InvalidInputError::new_err(e.to_string()))?;
        Ok(PreparedAudit { inner })
    }

    /// Row-level checks of `rows`, a list of `(row_number, line, json_text)`: returns
    /// `(findings, summaries, groups)`, the findings as dicts (as in the findings log),
    /// one JSON summary per row for [`PreparedAudit::table_findings`] or
    /// [`PreparedAudit::key_group`], and each row's key group (equal keys, equal group).
    #[allow(clippy::type_complexity)]
    fn check_rows<'py>(
        &self,
        py: Python<'py>,
        index: &Index,
        rows: Vec<(usize, u64, String)>,
    ) -> PyResult<(Bound<'py, PyAny>, Vec<String>, Vec<u64>)> {
        let ix = index.parsed()?;
        let out = py
            .detach(|| {
                let rows: Vec<wikiwit::audit::pieces::JsonRow<'_>> = rows
                    .iter()
                    .map(|(n, l, j)| wikiwit::audit::pieces::JsonRow {
                        number: *n,
                        line: *l,
                        json: j.as_bytes(),
                    })
                    .collect();
                wikiwit::audit::pieces::check_rows(&self.inner, ix, &rows)
            })
            .map_err(index_err)?;
        let mut findings = Vec::new();
        let mut summaries = Vec::with_capacity(out.len());
        let mut groups = Vec::with_capacity(out.len());
        for (f, s) in out {
            findings.extend(f);
            groups.push(wikiwit::audit::pieces::group_key(&s));
            summaries.push(to_json(&s)?);
        }
        Ok((py_value(py, &findings)?, summaries, groups))
    }

    /// Key integrity over one key group's summaries (every row of the group's keys, in
    /// row order): returns `(findings, part)`, `part` a JSON text for `merged_findings`.
    fn key_group<'py>(
        &self,
        py: Python<'py>,
        index: &Index,
        summaries: Vec<String>,
    ) -> PyResult<(Bound<'py, PyAny>, String)> {
        let ix = index.parsed()?;
        let parsed = parse_summaries(&summaries)?;
        let (f, part) = py.detach(|| wikiwit::audit::pieces::key_group(&self.inner, ix, parsed));
        Ok((py_value(py, &f)?, to_json(&part)?))
    }

    /// The whole-table checks over every key group's part (JSON texts from `key_group`,
    /// any order); `rows` is the table's row count.
    fn merged_findings<'py>(
        &self,
        py: Python<'py>,
        index: &Index,
        parts: Vec<String>,
        rows: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ix = index.parsed()?;
        let parsed: Vec<wikiwit::audit::pieces::TablePart> = parse_json(&parts, "a table part")?;
        let f = py
            .detach(|| wikiwit::audit::pieces::merged_findings(&self.inner, ix, parsed, rows))
            .map_err(index_err)?;
        py_value(py, &f)
    }

    /// Table-level checks over every row's summary (JSON texts from `check_rows`, in
    /// row order); `rows` is the table's row count.
    fn table_findings<'py>(
        &self,
        py: Python<'py>,
        index: &Index,
        summaries: Vec<String>,
        rows: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ix = index.parsed()?;
        let parsed = parse_summaries(&summaries)?;
        let f = py
            .detach(|| wikiwit::audit::pieces::table_findings(&self.inner, ix, parsed, rows))
            .map_err(index_err)?;
        py_value(py, &f)
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| WikiwitError::new_err(e.to_string()))
}

fn parse_summaries(summaries: &[String]) -> PyResult<Vec<wikiwit::audit::RowSummary>> {
    parse_json(summaries, "a row summary")
}

/// JSON texts handed back from an earlier stage; `what` names them in the error.
fn parse_json<T: serde::de::DeserializeOwned>(texts: &[String], what: &str) -> PyResult<Vec<T>> {
    texts
        .iter()
        .map(|s| serde_json::from_str(s))
        .collect::<Result<_, _>>()
        .map_err(|e| InvalidInputError::new_err(format!("{what}: {e}")))
}

fn export_err(e: wikiwit::export::ExportError) -> PyErr {
    match e {
        wikiwit::export::ExportError::Index(i) => index_err(i),
        e => WikiwitError::new_err(e.to_string()),
    }
}

/// Forwards build progress to a Python callable `progress(phase, done, total)`; errors
/// the callable raises are printed, not propagated (the build cannot be unwound from a
/// callback), and Ctrl-C in Python cancels nothing mid-phase.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    phase: std::sync::Mutex<(String, u64)>,
}

impl PyProgress {
    fn call(&self, done: u64) {
        let Some(cb) = &self.callback else { return };
        let (name, total) = self.phase.lock().map(|g| g.clone()).unwrap_or_default();
        Python::attach(|py| {
            if let Err(e) = cb.call1(py, (name, done, total)) {
                e.print(py);
            }
        });
    }
}

impl wikiwit::indexer::Progress for PyProgress {
    fn phase(&self, name: &str, total: u64) {
        if let Ok(mut g) = self.phase.lock() {
            *g = (name.to_string(), total);
        }
        self.call(0);
    }
    fn advance(&self, done: u64) {
        self.call(done);
    }
    fn finish(&self) {}
}

/// Builds an index from a dump; returns its manifest. `progress(phase, done, total)` is
/// called as phases start and advance (bytes of the dump).
#[pyfunction]
#[pyo3(signature = (dump, index, *, threads = 0, text = true, pages_only = false, expand = true, multistream_index = None, memory_budget = None, progress = None))]
#[allow(clippy::too_many_arguments)]
fn build<'py>(
    py: Python<'py>,
    dump: PathBuf,
    index: PathBuf,
    threads: usize,
    text: bool,
    pages_only: bool,
    expand: bool,
    multistream_index: Option<PathBuf>,
    memory_budget: Option<u64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = build_options(
        &dump,
        index,
        threads,
        (text, pages_only, expand),
        multistream_index,
        memory_budget,
    );
    let progress = PyProgress {
        callback: progress,
        phase: Default::default(),
    };
    let cancel = AtomicBool::new(false);
    let report = py
        .detach(|| wikiwit::indexer::build(&opts, &progress, &cancel))
        .map_err(|e| BuildError::new_err(format!("building from {}: {e}", show(&dump))))?;
    py_value(py, &report.manifest)
}

/// The options `build` and `build_shard` take, as the CLI's defaults complete them.
fn build_options(
    dump: &Path,
    index: PathBuf,
    threads: usize,
    (text, pages_only, expand): (bool, bool, bool),
    multistream_index: Option<PathBuf>,
    memory_budget: Option<u64>,
) -> wikiwit::indexer::BuildOptions {
    wikiwit::indexer::BuildOptions {
        dump: dump.to_path_buf(),
        multistream_index,
        index_dir: Some(index),
        threads,
        interwiki: wikiwit::title::InterwikiProfile::Auto,
        text,
        pages_only,
        memory_budget,
        tmp_dir: None,
        expand,
        build_date: None,
        strict: false,
        messages: None,
        sources: None,
    }
}

/// Builds shard `k` of `n` of a multistream dump into `out` (`build --shard K/N`);
/// returns the shard's manifest. What `merge` joins; Spark runs one per task.
#[pyfunction]
#[pyo3(signature = (dump, out, k, n, *, multistream_index = None, threads = 0, text = true, pages_only = false, expand = true, memory_budget = None, sources = None))]
#[allow(clippy::too_many_arguments)]
fn build_shard<'py>(
    py: Python<'py>,
    dump: PathBuf,
    out: PathBuf,
    k: usize,
    n: usize,
    multistream_index: Option<PathBuf>,
    threads: usize,
    text: bool,
    pages_only: bool,
    expand: bool,
    memory_budget: Option<u64>,
    sources: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let part: wikiwit::indexer::Shard = format!("{k}/{n}").parse().map_err(BuildError::new_err)?;
    let mut opts = build_options(
        &dump,
        out,
        threads,
        (text, pages_only, expand),
        multistream_index,
        memory_budget,
    );
    opts.sources = sources;
    let cancel = AtomicBool::new(false);
    let report = py
        .detach(|| {
            wikiwit::indexer::build_shard(&opts, part, &wikiwit::indexer::NoProgress, &cancel)
        })
        .map_err(|e| {
            BuildError::new_err(format!("building shard {part} from {}: {e}", show(&dump)))
        })?;
    py_value(py, &report.manifest)
}

/// Runs the first pass of a multistream dump with its index into `out` (`build
/// --sources-only`); returns its manifest. Every shard then takes it (`sources=`) instead
/// of decoding the templates' streams itself.
#[pyfunction]
#[pyo3(signature = (dump, out, *, multistream_index, threads = 0))]
fn build_sources<'py>(
    py: Python<'py>,
    dump: PathBuf,
    out: PathBuf,
    multistream_index: PathBuf,
    threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = build_options(
        &dump,
        out,
        threads,
        (false, false, true),
        Some(multistream_index),
        None,
    );
    let cancel = AtomicBool::new(false);
    let report = py
        .detach(|| wikiwit::indexer::build_sources(&opts, &wikiwit::indexer::NoProgress, &cancel))
        .map_err(|e| {
            BuildError::new_err(format!(
                "reading the templates and modules of {}: {e}",
                show(&dump)
            ))
        })?;
    py_value(py, &report.manifest)
}

/// Joins all shards of one build into the index `index` (`wikiwit merge`); returns its
/// manifest.
#[pyfunction]
#[pyo3(signature = (shards, index, *, threads = 0, memory_budget = None))]
fn merge<'py>(
    py: Python<'py>,
    shards: Vec<PathBuf>,
    index: PathBuf,
    threads: usize,
    memory_budget: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = wikiwit::indexer::MergeOptions {
        shards,
        index_dir: index.clone(),
        threads,
        memory_budget,
        tmp_dir: None,
    };
    let cancel = AtomicBool::new(false);
    let report = py
        .detach(|| wikiwit::indexer::merge(&opts, &wikiwit::indexer::NoProgress, &cancel))
        .map_err(|e| BuildError::new_err(format!("merging shards into {}: {e}", show(&index))))?;
    py_value(py, &report.manifest)
}

fn show(p: &Path) -> String {
    p.display().to_string()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Index>()?;
    m.add_class::<PreparedAudit>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(build_shard, m)?)?;
    m.add_function(wrap_pyfunction!(build_sources, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add("WikiwitError", py.get_type::<WikiwitError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    m.add("IndexDataError", py.get_type::<IndexDataError>())?;
    m.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
    m.add("BuildError", py.get_type::<BuildError>())?;
    m.add("AuditError", py.get_type::<AuditError>())?;
    Ok(())
}
