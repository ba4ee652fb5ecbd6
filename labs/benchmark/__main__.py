from labs._protocol import run_lab
from labs.benchmark.lab import main

if __name__ == "__main__":
    run_lab("benchmark", main)
