"""The profiler lab: find a training loop's bottleneck with torch.profiler (see README.md)."""
