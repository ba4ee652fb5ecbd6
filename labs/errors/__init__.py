"""에러 분해 lab: bias-variance decomposition, confusion matrix 분석, 데이터 불균형 탐지.

Run it with `python -m labs.errors --quick` from the repository root; see README.md.
"""
