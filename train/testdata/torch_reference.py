#!/usr/bin/python3
"""PyTorch reference for densify's side-by-side speed benchmark (train/speed_test.go).

The same U-Net as densify's unet.Model (unet/model.go: bias-free 3x3 convolutions
before batch norm, decoder blocks with a middle width of half their input width,
bilinear x2 upsampling with aligned corners, zero padding to the skip's size, a
1x1 output convolution with bias), the same Sobel edge channel, the weighted BCE
over labelled pixels of train/loss.go and torch.optim.Adam. It runs on the
libtorch of Debian's python3-torch, the library densify links.

It is a worker driven over stdin/stdout so that the benchmark can interleave
its steps with densify's (A B B A ...) and machine load hits both alike:

    torch_reference.py --mode train|infer --n N --w W --h H --threads T
    -> "ready"                 after building model and data
    "step\n" -> "seconds S C"  one training step / one inference: wall-clock
                               seconds S and CPU seconds C (user + system, all
                               threads of the process)
    "quit\n" -> "peak-MiB M"   the process's peak resident set (VmHWM)

train: the inputs are made once (RGB, Sobel edges, targets, weights: what a
PyTorch user keeps in a Dataset); a step is forward (train mode), loss,
zero_grad, backward, Adam. infer: a step starts from an 8-bit HxWx3 frame and
ends with a probability array and a thresholded mask in numpy, with eval-mode
batch norm under torch.no_grad() (densify's train.predictFrame); the frame is made
contiguous NCHW first, as densify's is (a permuted HxWx3 view would make libtorch
pick channels-last convolutions, a different computation).
"""
import argparse
import math
import resource
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Sequential):
    def __init__(self, cin, mid, cout):
        super().__init__(nn.Conv2d(cin, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
                         nn.Conv2d(mid, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, cin, base, depth, classes):
        super().__init__()
        ch = lambda l: base << min(l, depth - 1)
        self.enc = nn.ModuleList()
        c = cin
        for l in range(depth + 1):
            self.enc.append(Block(c, ch(l), ch(l)))
            c = ch(l)
        dec = [None] * depth
        up = ch(depth)
        for l in range(depth - 1, -1, -1):
            cin_l = ch(l) + up
            out = base if l == 0 else base << (l - 1)
            dec[l] = Block(cin_l, cin_l // 2, out)
            up = out
        self.dec = nn.ModuleList(dec)
        self.out = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        skips = []
        for e in self.enc[:-1]:
            x = e(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.enc[-1](x)
        for l in range(len(self.dec) - 1, -1, -1):
            s = skips[l]
            x = F.interpolate(x, size=(2 * x.shape[2], 2 * x.shape[3]), mode="bilinear", align_corners=True)
            dy, dx = s.shape[2] - x.shape[2], s.shape[3] - x.shape[3]
            if dy or dx:
                x = F.pad(x, (dx // 2, dx - dx // 2, dy // 2, dy - dy // 2))
            x = self.dec[l](torch.cat([s, x], 1))
        return self.out(x)


LUMA = torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)
SOBEL = torch.tensor([[-1., 0, 1, -2, 0, 2, -1, 0, 1], [-1., -2, -1, 0, 0, 0, 1, 2, 1]]).view(2, 1, 3, 3)


def sobel(rgb):
    """unet.Sobel: |grad| of the BT.601 luma, borders replicated, divided by 4*sqrt(2)."""
    y = F.pad(F.conv2d(rgb, LUMA), (1, 1, 1, 1), mode="replicate")
    g = F.conv2d(y, SOBEL)
    return g.square().sum(1, keepdim=True).sqrt() * (1 / (4 * math.sqrt(2)))


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def peak_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["train", "infer"], required=True)
    ap.add_argument("--n", type=int, default=1)
    ap.add_argument("--w", type=int, default=854)
    ap.add_argument("--h", type=int, default=480)
    ap.add_argument("--base", type=int, default=16)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    g = np.random.default_rng(1)
    m = UNet(4, a.base, a.depth, 1)
    if a.mode == "train":
        rgb = torch.from_numpy(g.random((a.n, 3, a.h, a.w), dtype=np.float32))
        x = torch.cat([rgb, sobel(rgb)], 1)
        lab = g.random((a.n, 1, a.h, a.w)) > 0.95
        y = torch.from_numpy((g.random((a.n, 1, a.h, a.w)) > 0.5).astype(np.float32))
        w = torch.from_numpy(lab.astype(np.float32))
        opt = torch.optim.Adam(m.parameters(), lr=1e-3)
        m.train()

        def step():
            out = m(x)
            loss = F.binary_cross_entropy_with_logits(out, y, weight=w, reduction="sum") / w.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.item()
    else:
        frame = g.integers(0, 256, (a.h, a.w, 3), dtype=np.uint8)
        m.eval()

        def step():
            with torch.no_grad():
                rgb = torch.from_numpy(frame).permute(2, 0, 1).unsqueeze(0).contiguous().float() / 255
                p = torch.sigmoid(m(torch.cat([rgb, sobel(rgb)], 1)))[0, 0].numpy()
                return (p > 0.5).astype(np.uint8).sum()

    print("ready", flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "step":
            t, c = time.perf_counter(), cpu_seconds()
            step()
            print("seconds %.6f %.6f" % (time.perf_counter() - t, cpu_seconds() - c), flush=True)
        elif cmd == "quit":
            break
    print("peak-MiB %.1f" % peak_mib(), flush=True)


if __name__ == "__main__":
    main()
