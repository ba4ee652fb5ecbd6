from labs._protocol import run_lab
from labs.amdahl.lab import main

# The guard matters: "spawn" worker processes import this module again (as __mp_main__),
# and must not start the lab a second time.
if __name__ == "__main__":
    run_lab("amdahl", main)
