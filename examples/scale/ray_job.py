"""Lint a gateway log on Ray Data: every row of a Parquet log through
sselint.lint_arrow in map_batches, the per-row results written as Parquet,
and a provider x rule table (how many rows of each provider each rule
fired on) as CSV.

    python examples/scale/ray_job.py LOG.parquet OUT_DIR [--num-cpus 2]

The log's columns are those examples/scale/gateway_log.py writes:
request_id, provider, model, path, status, headers (JSON text), body.
OUT_DIR gets results/ (one row per log row: sselint's result columns and
the provider) and provider_rules.csv (provider, rule, rows).
"""

from __future__ import annotations

import argparse
import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv
import ray

import sselint


def lint_batch(batch: pa.Table) -> pa.Table:
    """One Ray batch: sselint's result row for each log row, and the
    row's provider (for the table)."""
    out = sselint.lint_arrow(
        batch, id="request_id", status="status", headers="headers", request_path="path", jobs=1
    )
    return pa.Table.from_batches([out]).append_column("provider", batch.column("provider"))


def provider_rules(results: pa.Table) -> pa.Table:
    """provider, rule, rows: the rows of each provider each rule fired on."""
    rules = results.column("rules").combine_chunks()
    parents = pc.list_parent_indices(rules)
    pairs = pa.table(
        {
            "provider": pc.take(results.column("provider"), parents),
            "rule": pc.list_flatten(rules),
        }
    )
    counts = pairs.group_by(["provider", "rule"]).aggregate([([], "count_all")])
    counts = counts.rename_columns(["provider", "rule", "rows"])
    return counts.sort_by([("provider", "ascending"), ("rule", "ascending")])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("out")
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=2000)
    a = ap.parse_args()
    ray.init(num_cpus=a.num_cpus, include_dashboard=False, log_to_driver=False)
    ds = ray.data.read_parquet(os.path.abspath(a.log))
    results = ds.map_batches(lint_batch, batch_format="pyarrow", batch_size=a.batch_size)
    results = results.materialize()
    results.write_parquet(os.path.join(os.path.abspath(a.out), "results"))
    table = pa.concat_tables(ray.get(results.to_arrow_refs()))
    pyarrow.csv.write_csv(provider_rules(table), os.path.join(a.out, "provider_rules.csv"))
    ray.shutdown()


if __name__ == "__main__":
    main()
