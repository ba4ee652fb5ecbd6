"""Hands-on labs. Each `labs/NAME/` folder is a small program a learner can read and run."""
