"""The command line: argparse and the line modes. The only package that may import everything."""

from studyapp.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
