"""Amdahl's law lab: how far parallel workers can speed up a job with a serial part."""
