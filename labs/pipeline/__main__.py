from labs._protocol import run_lab
from labs.pipeline.lab import main

# The guard matters: DataLoader workers started with "spawn" import this module again
# (as __mp_main__) and must not start the lab a second time.
if __name__ == "__main__":
    run_lab("pipeline", main)
