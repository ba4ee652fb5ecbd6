"""The command line: argparse and the line modes. The only package that may import everything."""

from studyapp.cli.main import main

__all__ = ["main"]
