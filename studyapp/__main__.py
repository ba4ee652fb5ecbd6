"""`python -m studyapp` is the same as the `studyapp` command."""

from studyapp.cli import main

raise SystemExit(main())
