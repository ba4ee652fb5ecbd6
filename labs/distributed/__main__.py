from labs._protocol import run_lab
from labs.distributed.lab import main

# The guard matters: every rank is a "spawn" process that imports this module again (as
# __mp_main__) and must not start the lab a second time.
if __name__ == "__main__":
    run_lab("distributed", main)
