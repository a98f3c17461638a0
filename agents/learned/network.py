"""The size-independent policy-value network (torch): one set of weights for every board size.

Fully convolutional, after Ben-Assayag & El-Yaniv with KataGo-style global pooling
in the heads:

    planes (B, C, N, N) -> 3x3 conv stem -> ``blocks`` residual blocks (3x3 convs, ``channels``)
    policy: 1x1 conv -> ``policy_planes`` (P) logits per cell, flattened cell-major (N*N*P: the
            action ``cell * P + plane``), plus a pass logit from the pooled trunk. P = 1 for the
            placement games (the cell is the move); LOA's P = 8 directions name a move by its
            from-square, which keeps the head a 1x1 conv, free of N, where a from-to head
            would need N**4 outputs
    value:  1x1 conv -> mean- and max-pooled over the board -> MLP -> tanh, in [-1, 1]
    ownership (optional, training only): 1x1 conv -> tanh per cell, the final owner of each
            point from the mover's view (KataGo's auxiliary target: N*N targets per position
            where the result gives one, so the trunk learns which discs and stones last)

No layer has a size tied to N, so a net trained on 6x6-8x8 plays 16x16 as is. Batch norm is
left out on purpose: batches here are small and of one size at a time, and a plain residual
tower with a scaled-down last layer trains stably at this depth. The zero padding of the
convolutions plus the all-ones input plane tell the net where the board ends.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        nn.init.zeros_(self.conv2.weight)  # each block starts as the identity
        nn.init.zeros_(self.conv2.bias)

    def forward(self, x):
        return F.relu(x + self.conv2(F.relu(self.conv1(x))))


class PolicyValueNet(nn.Module):
    """``forward(planes) -> (logits (B, N*N*P+1), value (B,))``; the last logit is the pass.

    ``policy_planes`` (P) defaults to 1: the sidecars written before it existed lack it and
    describe one-plane nets, so they load unchanged.
    """

    def __init__(
        self,
        in_planes: int = 3,
        channels: int = 32,
        blocks: int = 4,
        head: int = 32,
        ownership: bool = False,
        policy_planes: int = 1,
    ):
        super().__init__()
        if isinstance(policy_planes, bool) or not isinstance(policy_planes, int) or policy_planes < 1:
            raise ValueError(f"policy_planes={policy_planes!r}: expected a whole number of logits per cell, >= 1")
        self.config = {
            "in_planes": in_planes,
            "channels": channels,
            "blocks": blocks,
            "head": head,
            "ownership": ownership,
            "policy_planes": policy_planes,
        }
        self.policy_planes = policy_planes
        self.stem = nn.Conv2d(in_planes, channels, 3, padding=1)
        self.tower = nn.Sequential(*(ResidualBlock(channels) for _ in range(blocks)))
        self.policy_conv = nn.Conv2d(channels, policy_planes, 1)
        self.pass_fc = nn.Linear(2 * channels, 1)
        self.value_conv = nn.Conv2d(channels, head, 1)
        self.value_fc1 = nn.Linear(2 * head, head)
        self.value_fc2 = nn.Linear(head, 1)
        self.ownership_conv = nn.Conv2d(channels, 1, 1) if ownership else None

    @staticmethod
    def _pool(x):
        """Mean and max over the board: (B, C, N, N) -> (B, 2C), defined for any N."""
        return torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)

    def forward(self, planes, ownership: bool = False):
        """``(logits, value)``, plus the (B, N, N) ownership map if asked (and the net has one)."""
        x = self.tower(F.relu(self.stem(planes)))
        cells = self.policy_conv(x).permute(0, 2, 3, 1).flatten(1)  # (B, N, N, P): cell-major
        logits = torch.cat([cells, self.pass_fc(self._pool(x))], dim=1)
        v = F.relu(self.value_conv(x))
        v = torch.tanh(self.value_fc2(F.relu(self.value_fc1(self._pool(v))))).squeeze(1)
        if not ownership:
            return logits, v
        if self.ownership_conv is None:
            raise ValueError("this net has no ownership head (built with ownership=False)")
        return logits, v, torch.tanh(self.ownership_conv(x)).squeeze(1)


def build(config: dict) -> PolicyValueNet:
    """A network from its architecture dict (the ``architecture`` entry of a weights sidecar)."""
    return PolicyValueNet(**config)


def policy_logits(net: PolicyValueNet, planes, num_actions: int, ownership: bool = False):
    """Run ``net`` and fit its logits to a game's action space: Gomoku has no pass action."""
    out = net(planes, ownership=ownership)
    return (out[0][:, :num_actions], *out[1:])
