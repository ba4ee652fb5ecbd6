"""The workload the profiler lab measures: a small CNN with two planted problems.

1. `conv2` is planted as the heavy layer: a 7×7 kernel producing 64 channels at full resolution
   does far more multiply-adds than every other layer together. The lab does not know this —
   it finds the bottleneck from the measured forward time of each `record_function` label.
2. `SlowDataset.__getitem__` sleeps 2 ms per sample, like decoding an image from disk. With
   `num_workers=0` the training loop waits for it on every step; worker processes hide it.

This module imports torch at the top, so only the lab's run mode imports it (never `--trace`).
DataLoader worker processes (spawn) import it too: that is why `SlowDataset` lives at module
level of an importable module.
"""

from __future__ import annotations

import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import record_function
from torch.utils.data import DataLoader, Dataset

# The label prefix the lab looks for in the profile; each layer's forward runs inside
# `record_function(LAYER_PREFIX + name)` and shows up as a `user_annotation` event.
LAYER_PREFIX = "layer:"
# The layer planted as the bottleneck. Only the tests and the findings compare against it;
# the lab's `bottleneck` is always the label with the largest measured forward time.
PLANTED_LAYER = LAYER_PREFIX + "conv2"

IMAGE_SIZE = 32


def describe_planted(model: nn.Module) -> str:
    """ "7×7 커널, 64채널" — read from the layer itself, so it stays true if you change it."""
    layer = getattr(model, PLANTED_LAYER.removeprefix(LAYER_PREFIX))
    k = layer.kernel_size
    return f"{k[0]}×{k[1]} 커널, {layer.out_channels}채널"


NUM_CLASSES = 10


class SmallCNN(nn.Module):
    """conv1 → conv2 (planted, heavy) → conv3 → fc, for 3×32×32 images."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        # Planted bottleneck: 16 → 64 channels with a 7×7 kernel at 32×32.
        # Multiply-adds per image: 64 × 16 × 7 × 7 × 32 × 32 ≈ 51 M, versus ≈ 0.4 M for conv1
        # and ≈ 4.7 M for conv3 (which runs after pooling, at 16×16): about 10× the rest together.
        self.conv2 = nn.Conv2d(16, 64, kernel_size=7, padding=3)
        self.conv3 = nn.Conv2d(64, 32, kernel_size=3, padding=1)
        self.fc = nn.Linear(32 * (IMAGE_SIZE // 4) ** 2, NUM_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Each block is labelled. The label covers the forward pass only: the backward of these
        # ops runs later, inside `loss.backward()`, as `autograd::engine::evaluate_function: ...`.
        with record_function(LAYER_PREFIX + "conv1"):
            x = F.relu(self.conv1(x))
        with record_function(LAYER_PREFIX + "conv2"):
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        with record_function(LAYER_PREFIX + "conv3"):
            x = F.max_pool2d(F.relu(self.conv3(x)), 2)
        with record_function(LAYER_PREFIX + "fc"):
            x = self.fc(torch.flatten(x, 1))
        return x


class SlowDataset(Dataset):
    """Random images whose `__getitem__` is slow on purpose (a sleep, like reading a file)."""

    def __init__(self, length: int, delay_s: float = 0.002, seed: int = 0) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.images = torch.randn(length, 3, IMAGE_SIZE, IMAGE_SIZE, generator=generator)
        self.labels = torch.randint(0, NUM_CLASSES, (length,), generator=generator)
        self.delay_s = delay_s

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        time.sleep(self.delay_s)  # planted: the data pipeline is slow, not the model
        return self.images[index], self.labels[index]


def make_loader(steps: int, batch_size: int, num_workers: int, pin_memory: bool = False) -> DataLoader:
    """A DataLoader that yields exactly `steps` batches (one epoch)."""
    dataset = SlowDataset(steps * batch_size)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=False,
        num_workers=num_workers,
        # Workers are separate processes. "spawn" starts a fresh interpreter (safe with a
        # threaded parent, works everywhere) — each worker imports torch, which costs a second
        # or two once, before the first batch arrives.
        multiprocessing_context="spawn" if num_workers > 0 else None,
        pin_memory=pin_memory,
    )


def make_model(device: str, seed: int = 0) -> tuple[SmallCNN, torch.optim.Optimizer]:
    torch.manual_seed(seed)
    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    return model, optimizer


def train_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, images: torch.Tensor, labels: torch.Tensor
) -> float:
    """One ordinary training step: forward, loss, backward, optimizer update."""
    optimizer.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()  # .item() waits for the device: the step is really finished here
