"""Running labs: discovering them, running each in a subprocess, rendering and recording results."""
