"""Lint a gateway log on Spark: every row of a Parquet log through
sselint.lint_arrow in mapInArrow, the per-row results written as Parquet,
and a provider x rule table (how many rows of each provider each rule
fired on) as CSV.

    python examples/scale/spark_job.py LOG.parquet OUT_DIR [--master local[2]]

The log's columns are those examples/scale/gateway_log.py writes. OUT_DIR
gets results/ (one row per log row: sselint's result columns and the
provider) and provider_rules.csv (provider, rule, rows).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Iterator

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

# sselint's result columns (docs/scale.md), and the provider carried along.
SCHEMA = (
    "id string, verdict string, errors long, warnings long, infos long, dialect string, "
    "ending string, provider_guess string, answer_chars long, rules array<string>, "
    "read_error string, provider string"
)


def lint_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow: sselint's result row for each log row, with its provider."""
    import sselint

    for b in batches:
        out = sselint.lint_arrow(
            b, id="request_id", status="status", headers="headers", request_path="path", jobs=1
        )
        yield pa.RecordBatch.from_arrays(
            [*out.columns, b.column("provider")], names=[*out.schema.names, "provider"]
        )


def input_bytes(path: str) -> int:
    """The size of a Parquet file, or of the files under a directory."""
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("out")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--batch-size", type=int, default=2000)
    a = ap.parse_args()
    m = re.fullmatch(r"local\[(\d+)\]", a.master)
    a.cores = int(m.group(1)) if m else (os.cpu_count() or 1)
    # Local workers run this interpreter, where sselint and pyarrow are.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Spark splits Parquet input by compressed bytes (128 MiB a split), but
    # bodies compress well: a log of 100,000 rows can be a 3 MiB file, one
    # split, one task, one core. Splits of a quarter of each core's share
    # (at least 256 KiB; by row group) keep every core busy.
    split = max(256 << 10, input_bytes(a.log) // (4 * a.cores))
    spark = (
        SparkSession.builder.master(a.master)
        .appName("sselint")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(a.batch_size))
        .config("spark.sql.files.maxPartitionBytes", str(split))
        .config("spark.sql.files.openCostInBytes", str(split))
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.read.parquet(os.path.abspath(a.log))
    results = df.mapInArrow(lint_batches, SCHEMA).cache()
    results.write.mode("overwrite").parquet(os.path.join(os.path.abspath(a.out), "results"))
    table = (
        results.select("provider", F.explode("rules").alias("rule"))
        .groupBy("provider", "rule")
        .agg(F.count("*").alias("rows"))
        .orderBy("provider", "rule")
    )
    rows = table.collect()
    with open(os.path.join(a.out, "provider_rules.csv"), "w", encoding="utf-8") as f:
        f.write('"provider","rule","rows"\n')
        for r in rows:
            f.write(f'"{r["provider"]}","{r["rule"]}",{r["rows"]}\n')
    spark.stop()


if __name__ == "__main__":
    main()
