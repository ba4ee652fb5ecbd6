from labs._protocol import run_lab
from labs.concurrency.lab import main

# spawn으로 뜬 자식 프로세스가 이 파일을 다시 실행하지 않도록 __main__ guard를 둔다
if __name__ == "__main__":
    run_lab("concurrency", main)
