"""Type stubs of the native module (src/python.rs); use the wrappers in
sselint (lint, lint_many, lint_arrow, check, check_many) instead."""

from typing import Any, List, Optional, Tuple, Union

from ._report import Report

VERSION: str

def lint_many(
    bodies: List[Optional[bytes]],
    ids: Optional[List[str]],
    statuses: Optional[List[Optional[int]]],
    headers: Optional[List[Optional[Union[str, List[Tuple[str, str]]]]]],
    paths: Optional[List[Optional[str]]],
    profiles: Optional[List[Optional[str]]],
    jobs: Optional[int],
    profile: Optional[str],
    dialect: Optional[str],
    select: List[str],
    ignore: List[str],
    fail_on: Optional[str],
    config: Optional[str],
    find_config: bool,
    input_format: Optional[str],
    max_event_bytes: Optional[int],
    max_decoded_bytes: Optional[int],
    stall_ms: Optional[int],
    timeout_ms: Optional[int],
) -> List[Report]: ...
def check_paths(
    paths: List[str],
    jobs: Optional[int],
    profile: Optional[str],
    dialect: Optional[str],
    select: List[str],
    ignore: List[str],
    fail_on: Optional[str],
    config: Optional[str],
    find_config: bool,
    input_format: Optional[str],
    max_event_bytes: Optional[int],
    max_decoded_bytes: Optional[int],
    stall_ms: Optional[int],
    timeout_ms: Optional[int],
) -> Tuple[str, int]: ...
def lint_arrow(
    batch: Any,
    body: str,
    id: Optional[str],
    status: Optional[str],
    headers: Optional[str],
    request_path: Optional[str],
    profile_column: Optional[str],
    full: bool,
    jobs: Optional[int],
    profile: Optional[str],
    dialect: Optional[str],
    select: List[str],
    ignore: List[str],
    fail_on: Optional[str],
    config: Optional[str],
    find_config: bool,
    max_event_bytes: Optional[int],
    max_decoded_bytes: Optional[int],
    stall_ms: Optional[int],
    timeout_ms: Optional[int],
) -> Any: ...
def main(argv: List[str]) -> int: ...
