"""The command line: argparse and the line modes. The only package that may import everything."""

from studyapp import startup

# Importing the command line imports the domain: part of the start, so without the collector
# (studyapp/startup.py); it runs again once the imports are done, without walking them.
startup.pause_collection()
try:
    from studyapp.cli.main import build_parser, main
finally:
    startup.imports_done()

__all__ = ["build_parser", "main"]
