"""A spark-submit job: audits a Parquet file of staged rows (one column per field of
the contract, one record per row, in row order) against a contract and an index, and
writes the findings as Parquet (docs/python.md, "Running on a cluster").

    spark-submit --master yarn --archives ix.tar.gz#ix \\
        python/examples/audit_job.py rows.parquet contract.json ix findings.parquet

Write the rows file with ``wikiwit.write_staged_parquet(rows, "contract.json",
"rows.parquet")``, which keeps every column of the contract whichever rows hold it
(``pyarrow.Table.from_pylist`` keeps only the first row's). The index argument is a
path every executor can read, or the alias of an archive
shipped with ``--archives``. Prints the number of findings; exit code 1 when some are
blocking (as ``wikiwit audit``), 2 on bad input.
"""

import argparse
import sys

from pyspark.sql import SparkSession

import wikiwit
from wikiwit import spark as wspark


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description="audit staged rows (Parquet) on Spark")
    a.add_argument("rows", help="Parquet file or directory of staged rows")
    a.add_argument("contract", help="the contract (JSON), read on the driver")
    a.add_argument("index", help="the index directory (shared path or archive alias)")
    a.add_argument("output", help="where the findings are written (Parquet)")
    a.add_argument("--table-partitions", type=int, help="key-integrity tasks (default: as the rows)")
    args = a.parse_args(argv)
    spark = SparkSession.builder.appName("wikiwit-audit").getOrCreate()
    try:
        rows = spark.read.parquet(args.rows)
        findings = wspark.audit(
            rows,
            args.contract,
            args.index,
            json_col=None,
            output=args.output,
            table_partitions=args.table_partitions,
        )
        total = findings.count()
        blocking = findings.filter(findings.severity == "blocking").count()
    except (wikiwit.WikiwitError, OSError) as e:
        print(f"audit_job: {e}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    print(f"{total} findings ({blocking} blocking) written to {args.output}")
    return 1 if blocking else 0


if __name__ == "__main__":
    sys.exit(main())
