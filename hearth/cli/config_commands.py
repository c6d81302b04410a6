"""``hearth config sample``: every option Hearth reads, generated from the code's definitions."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from oslo_config import cfg, generator

# Hearth's own options, then those of the libraries it configures through the same file.
NAMESPACES = ("hearth", "keystonemiddleware.auth_token", "oslo.policy", "oslo.messaging")


def register(commands: Any) -> None:
    config = commands.add_parser("config", help="configuration files")
    sub = config.add_subparsers(dest="config_command", required=True)
    sample = sub.add_parser("sample", help="print a sample config file with every option")
    sample.add_argument("--output-file", help="write it here instead of standard output")
    sample.set_defaults(func=cmd_sample)


def cmd_sample(args: argparse.Namespace) -> int:
    conf = cfg.ConfigOpts()
    generator.register_cli_opts(conf)
    argv: list[str] = []
    for namespace in NAMESPACES:
        argv += ["--namespace", namespace]
    argv += ["--wrap-width", "79"]
    if args.output_file:
        argv += ["--output-file", args.output_file]
    conf(argv, project="hearth")
    generator.generate(conf, output_file=None if args.output_file else sys.stdout)
    return 0
