"""Faithful tiny implementations of helpers that the code under test calls at run time but
that live in stubbed sglang modules.  One place, each with why it is faithful.

Installed into the loaded module's globals in place of the stub of the same name, only when
the module imported that name from that module.
"""

from __future__ import annotations


RANK0 = "rank0"  # marks a record logged through log_info_on_rank0 (observe.CaptureHandler)


def log_info_on_rank0(logger, msg):
    # sglang.srt.utils.common.log_info_on_rank0: logs `msg` at info level on tensor-parallel
    # rank 0 of an initialised process group (the serving case).  The harness models rank 0
    # of a running server, so it logs; an unranked process would log nothing in both versions.
    # It is not `logger.info` (other ranks stay silent), so the record is marked: a change
    # between the two is a divergence.
    logger.info(msg, extra={RANK0: True})


# (module the name is imported from, name) -> implementation
HELPERS = {
    ("sglang.srt.utils", "log_info_on_rank0"): log_info_on_rank0,
    ("sglang.srt.utils.common", "log_info_on_rank0"): log_info_on_rank0,
}
