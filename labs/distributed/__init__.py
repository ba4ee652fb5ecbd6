"""The network bottleneck: DDP on several processes over gloo on 127.0.0.1."""
