"""The errors lab's findings: Korean sentences computed from the numbers of each analysis
(bias-variance, confusion matrix, imbalance, and for `--data` the learner's own predictions).
"""

from __future__ import annotations

import itertools


def num_text(value: float | None, spec: str) -> str:
    return "없음" if value is None else format(value, spec)


def pair_text(confusion: dict) -> str:
    top = confusion["top_confusions"]
    return f"{top[0]['true']}→{top[0]['pred']} {top[0]['count']}건" if top else "없음"


def rarest_class(imbalance: dict) -> str:
    present = {label: c for label, c in imbalance["counts"].items() if c > 0}
    return min(present, key=present.get)


def bias_variance_findings(rows: list[dict], roles: dict, *, rounds: int, n_test: int) -> list[str]:
    by_degree = {r["degree"]: r for r in rows}
    noise = rows[0]["noise"]
    worst_identity = max(abs(r["identity_residual"]) for r in rows)
    worst_noise = max(rows, key=lambda r: abs(r["noise_residual"]))
    findings = [
        "squared loss에서는 loss = bias² + variance가 정확히 성립한다: "
        f"degree {[r['degree'] for r in rows]}에서 |loss − (bias² + variance)| 최대 "
        f"{worst_identity:.1e} (부동소수점 반올림 수준). 이 bias²는 mlxtend 방식"
        f"(평균 예측 f̄와 noisy y의 차이)이라 noise(σ² = {noise:.3g})를 포함한다.",
        "참 함수 f = sin(2πx)를 알기 때문에 bias²를 더 나눌 수 있다: "
        "loss ≈ (f̄ − f)² + variance + σ². 잔차 |loss − 합|은 최대 "
        f"{abs(worst_noise['noise_residual']):.3g} (degree {worst_noise['degree']}) — 이 식은 "
        f"기댓값으로만 성립해서, test 점 {n_test}개에 한 번 뽑힌 noise의 표본 오차만큼 어긋난다.",
    ]
    best = by_degree[roles["best"]]
    if roles["underfit"] is not None:
        r = by_degree[roles["underfit"]]
        findings.append(
            f"degree {r['degree']} = underfit: true bias²({r['true_bias2']:.3g})가 "
            f"variance({r['variance']:.3g})의 {r['true_bias2'] / max(r['variance'], 1e-300):.0f}배 — "
            "모델이 너무 단순해 곡선을 따라가지 못한다. 데이터를 늘려도 이 bias는 줄지 않고, "
            "더 유연한 모델(높은 degree, feature 추가)이 필요하다."
        )
    else:
        findings.append(
            f"best degree {best['degree']}보다 단순하면서 bias가 지배적인 degree가 목록에 없다 "
            "(underfit 후보 없음)."
        )
    if roles["overfit"] is not None:
        r = by_degree[roles["overfit"]]
        findings.append(
            f"degree {r['degree']} = overfit: variance({r['variance']:.3g})가 loss({r['loss']:.3g})의 "
            f"{r['variance'] / r['loss']:.0%} — bootstrap 표본이 조금만 달라도 곡선이 크게 바뀐다. "
            "처방은 데이터 추가, regularization, 더 낮은 degree."
        )
    else:
        findings.append(
            f"best degree {best['degree']}보다 복잡하면서 variance가 지배적인 degree가 목록에 없다 "
            "(overfit 후보 없음)."
        )
    findings.append(bootstrap_vs_fresh_finding(rows, rounds))
    findings.append(
        f"loss 최소는 degree {best['degree']} ({best['loss']:.3g}): noise 바닥 σ² = {noise:.3g}의 "
        f"{best['loss'] / noise:.2f}배. σ²는 irreducible error라 어떤 degree로도 그 아래로 내려가지 않는다."
    )
    return findings


def bootstrap_vs_fresh_finding(rows: list[dict], rounds: int) -> str:
    """Why the bootstrap's true bias² need not fall with the degree, from the two measurements."""
    lo, hi = rows[0], rows[-1]
    boot = " → ".join(f"{r['true_bias2']:.3g}" for r in rows)
    fresh = " → ".join(f"{r['fresh_true_bias2']:.3g}" for r in rows)
    rises = any(b["true_bias2"] > a["true_bias2"] * 1.05 for a, b in itertools.pairwise(rows))
    text = (
        f"true bias² (degree {lo['degree']}→{hi['degree']}): bootstrap {boot}; 매번 새 training set을 "
        f"뽑으면 {fresh}. "
    )
    if rises:
        text += (
            "bootstrap 쪽이 degree가 커질수록 다시 커지는 것은 모순이 아니다: 하나의 training set을 "
            "복원 추출하면 모든 표본이 그 set의 noise를 공유해서, 유연한 모델의 평균 예측 f̄가 그 noise를 "
            "따라간다(외운 noise가 bias²로 잡힌다). 교과서의 'bias는 복잡도와 함께 준다'는 training set "
            "자체에 대한 기댓값(새 표본)에서의 이야기이고, 실제 데이터에서는 bootstrap이 그 근사다."
        )
    else:
        text += (
            "두 방법 모두 복잡도가 커질수록 bias²가 줄어든다. bootstrap은 training set 하나를 복원 추출하므로 "
            "그 set의 noise가 f̄에 남아, 새 표본으로 잰 값보다 bias²가 약간 크게 나올 수 있다."
        )
    text += (
        f" 두 값 모두 {rounds}회 평균 f̄로 재므로 (f̄ − f)²에는 평균의 흔들림 ≈ variance/{rounds}도 들어 있다 "
        f"(degree {hi['degree']}: 새 표본 variance {hi['fresh_variance']:.3g} / {rounds} ≈ "
        f"{hi['fresh_variance'] / rounds:.3g}) — variance가 큰 고차 degree의 bias² 추정이 부풀려지는 이유다."
    )
    return text


def confusion_findings(confusion: dict) -> list[str]:
    labels = confusion["labels"]
    matrix = confusion["matrix"]
    per_class = confusion["per_class"]
    total = sum(map(sum, matrix))
    correct = sum(matrix[i][i] for i in range(len(labels)))
    errors = total - correct
    present = {label: m for label, m in per_class.items() if m["support"] > 0}
    worst_recall = min(present, key=lambda label: present[label]["recall"])
    worst_precision = min(per_class, key=lambda label: per_class[label]["precision"])
    findings = [
        f"{total}개 중 {correct}개 정답 (accuracy {correct / total:.3f}). recall이 가장 낮은 클래스는 "
        f"{worst_recall} ({per_class[worst_recall]['recall']:.2f}), precision이 가장 낮은 클래스는 "
        f"{worst_precision} ({per_class[worst_precision]['precision']:.2f}) — 전체 accuracy 하나로는 "
        "어느 클래스가 문제인지 보이지 않는다."
    ]
    top = confusion["top_confusions"]
    if top:
        t, p = labels.index(top[0]["true"]), labels.index(top[0]["pred"])
        both = matrix[t][p] + matrix[p][t]
        findings.append(
            f"가장 많이 혼동한 쌍: 실제 {labels[t]} → 예측 {labels[p]} {matrix[t][p]}건, "
            f"반대 방향 {matrix[p][t]}건; 합치면 {labels[t]}↔{labels[p]} 쌍이 에러 {errors}건의 "
            f"{both / errors:.0%}. 이 두 클래스를 가르는 feature나 데이터가 개선 1순위다."
        )
    else:
        findings.append("에러가 하나도 없다: 모든 샘플이 confusion matrix의 대각선에 있다.")
    noise = confusion["label_noise"]
    if noise is not None and noise["flipped"] > 0:
        share = noise["errors_from_label_noise"] / noise["errors"] if noise["errors"] else 0.0
        findings.append(
            f"라벨 노이즈 {noise['rate']:.0%}: test 라벨 {noise['flipped']}개가 뒤집혀 있다. "
            f"에러 {noise['errors']}건 중 {noise['errors_from_label_noise']}건({share:.0%})은 모델이 "
            f"원래 라벨을 맞혔는데 라벨이 틀린 경우, 나머지 {noise['errors_from_model']}건은 모델 "
            f"혼동이다. 깨끗한 라벨로 채점하면 accuracy {noise['clean_accuracy']:.3f} (관측 라벨 "
            f"{noise['observed_accuracy']:.3f}) — 에러 분해로 데이터 라벨 오류 때문에 생긴 성능 "
            "저하를 찾아낸 것이다."
        )
        s = noise.get("suspects")
        if s is not None:
            findings.append(
                f"뒤집힌 라벨을 모른다고 치고 모델 확신도 ≥ {s['threshold']:.0%}인 에러 "
                f"{s['count']}건을 라벨 오류 후보로 뽑으면 그중 {s['really_flipped']}건"
                f"({s['precision']:.0%})이 실제로 뒤집힌 라벨이다 (뒤집힌 것 전체의 {s['recall']:.0%}). "
                "이런 후보부터 다시 확인하는 편이 오차 유형을 모른 채 데이터 양만 늘리는 것보다 싸다."
            )
    elif noise is not None:
        findings.append(
            f"라벨 노이즈 0: 에러 {noise['errors']}건은 모두 모델 혼동이다 (--label-noise 0.1로 라벨 "
            "오류를 심어 비교해 보라)."
        )
    return findings


def convention_findings(confusion: dict) -> list[str]:
    """Say which conventions the numbers use, where a learner (or another tool) could differ."""
    labels = confusion["labels"]
    matrix = confusion["matrix"]
    never_predicted = [label for j, label in enumerate(labels) if sum(row[j] for row in matrix) == 0]
    findings = [
        f"macro-F1과 macro 평균은 라벨 {len(labels)}개 전부(실제 또는 예측에 한 번이라도 나온 라벨)의 "
        "단순 평균이다 — scikit-learn의 `f1_score(average='macro')` 기본값과 같은 라벨 집합이다."
    ]
    if never_predicted:
        findings.append(
            f"한 번도 예측되지 않은 클래스 {never_predicted}: precision = TP / (TP + FP) = 0/0이라 "
            "정의되지 않는다. 여기서는 scikit-learn의 zero_division=0처럼 0으로 두었다 (관례일 뿐, "
            "'정밀도가 나쁘다'는 뜻이 아니라 '그 클래스를 아예 고르지 않는다'는 뜻이다)."
        )
    return findings


def ranking_findings(ranking: dict) -> list[str]:
    roc, pr, share = ranking["roc_auc"], ranking["pr_auc"], ranking["positive_share"]
    if roc is None or pr is None:
        return ["실제 라벨에 양성 또는 음성이 하나도 없어 ROC-AUC와 PR-AUC를 계산할 수 없다."]
    best = max(ranking["thresholds"], key=lambda r: r["f1"])
    findings = [
        f"확률 열 '{ranking['score_col']}' (양성 '{ranking['positive_label']}', 비율 {share:.1%}): "
        f"ROC-AUC {roc:.3f} (무작위 0.5), PR-AUC(average precision) {pr:.3f} (무작위 = 양성 비율 "
        f"{share:.3f}). 임계값 표에서 F1이 가장 큰 t는 {best['threshold']:g} (F1 {best['f1']:.3f}) — "
        "0.5가 항상 최선은 아니다."
    ]
    if share < 0.2 and roc - pr > 0.2:
        findings.append(
            f"양성이 {share:.1%}뿐인 불균형 데이터에서 ROC-AUC {roc:.3f}는 좋아 보이지만 PR-AUC는 "
            f"{pr:.3f}이다: 음성이 많아 FPR은 작아도 거짓 양성 수가 진짜 양성보다 많을 수 있다. "
            "불균형에서는 PR-AUC와 임계값별 precision을 본다."
        )
    return findings


def imbalance_findings(imbalance: dict, synthetic: bool) -> list[str]:
    counts = imbalance["counts"]
    total = sum(counts.values())
    ratio = imbalance["imbalance_ratio"]
    entropy = imbalance["normalized_entropy"]
    k_present = sum(1 for c in counts.values() if c > 0)
    shares = " / ".join(f"{label} {c / total:.1%}" for label, c in counts.items())
    base = imbalance["majority_baseline"]
    majority = imbalance["majority_label"]
    findings = [
        f"클래스 분포 {shares}: imbalance ratio(max/min) {num_text(ratio, '.1f')}, normalized entropy H/log k "
        f"{num_text(entropy, '.2f')} (균등하면 1, 한 클래스로 쏠릴수록 0).",
    ]
    trap = (
        f"항상 '{majority}'만 답하는 majority 모델의 accuracy는 {base['accuracy']:.3f}(= '{majority}' 비율), "
        f"balanced accuracy {base['balanced_accuracy']:.3f}(= 1/{k_present}), "
        f"macro-F1 {base['macro_f1']:.3f}, MCC {base['mcc']:.2f}"
    )
    if ratio is not None and ratio >= 3 and base["accuracy"] >= 0.5:
        findings.append(trap + " — accuracy만 보면 아무것도 배우지 않은 모델이 좋아 보인다 (accuracy 함정).")
    else:
        findings.append(
            trap + " — 분포가 크게 치우치지 않아 majority 모델은 accuracy부터 낮다. accuracy 함정은 "
            "한 클래스가 대부분인 불균형 데이터에서 생긴다."
        )
    rare = rarest_class(imbalance)
    models = imbalance["models"]
    if synthetic:
        plain, weighted = models["softmax"], models["softmax_weighted"]
        trade = "상승" if weighted["macro_f1"] > plain["macro_f1"] else "하락"
        findings.append(
            f"softmax 모델: accuracy {plain['accuracy']:.3f}, 가장 드문 '{rare}'의 recall "
            f"{plain['recall'][rare]:.2f}. class weight(n/(k·n_c))를 주면 '{rare}' recall "
            f"{weighted['recall'][rare]:.2f}, balanced accuracy {plain['balanced_accuracy']:.3f}→"
            f"{weighted['balanced_accuracy']:.3f}, accuracy {plain['accuracy']:.3f}→"
            f"{weighted['accuracy']:.3f}, macro-F1 {plain['macro_f1']:.3f}→{weighted['macro_f1']:.3f} "
            f"({trade}). minority recall을 얻는 대가로 다른 클래스의 precision을 잃을 수 있어, "
            "threshold로 그 균형점을 고른다."
        )
    if ratio is not None and ratio >= 3:
        level = "심한 불균형" if ratio >= 10 else "불균형"
        findings.append(
            f"imbalance ratio {ratio:.1f}: {level}(경험칙: 3 이상 불균형, 10 이상 심함). 대처: accuracy 대신 "
            f"balanced accuracy·macro-F1·MCC·클래스별 recall/precision('{rare}' 포함)을 보고하고, "
            "class weight나 resampling(minority oversampling·majority undersampling, train set에만)으로 "
            "학습을 보정하고, "
            "threshold tuning으로 precision/recall 균형을 고른다. test set은 원래 분포 그대로 평가한다."
        )
    elif ratio is not None:
        findings.append(
            f"imbalance ratio {ratio:.1f}: 크게 치우치지 않았다(경험칙: 3 이상이면 불균형) — "
            "이 정도면 accuracy도 쓸 만하지만 클래스별 recall은 함께 본다."
        )
    return findings


def file_findings(confusion: dict, imbalance: dict) -> list[str]:
    yours = imbalance["models"]["your_model"]
    base = imbalance["majority_baseline"]
    gap = yours["accuracy"] - base["accuracy"]
    findings = [
        f"내 예측: accuracy {yours['accuracy']:.3f}, balanced accuracy {yours['balanced_accuracy']:.3f}, "
        f"macro-F1 {yours['macro_f1']:.3f}, MCC {yours['mcc']:.3f}. "
        f"항상 '{imbalance['majority_label']}'만 답하는 baseline의 accuracy는 {base['accuracy']:.3f} "
        f"(차이 {gap:+.3f})."
    ]
    if gap <= 0:
        findings[0] += " 모델이 baseline보다 낫지 않다 — accuracy 숫자를 믿기 전에 이 비교부터 하라."
    never_true = [label for label, c in imbalance["counts"].items() if c == 0]
    if never_true:
        findings.append(
            f"예측에는 있지만 실제 라벨에는 없는 클래스: {never_true} — "
            "라벨 체계가 맞는지(오타, 대소문자) 확인하라."
        )
    return findings
