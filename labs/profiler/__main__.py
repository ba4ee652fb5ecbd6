from labs._protocol import run_lab
from labs.profiler.lab import main

# The guard matters: DataLoader workers are started with "spawn", which re-imports modules.
if __name__ == "__main__":
    run_lab("profiler", main)
