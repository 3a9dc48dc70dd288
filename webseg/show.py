"""Draw a segmentation over a page screenshot, for people to judge segmenters by eye."""

from __future__ import annotations

import os
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from webseg.segmentation import Segmentation

#: One colour per hierarchy level (level 1 first), chosen to stay distinct on most pages.
LEVEL_COLOURS = [(230, 25, 75), (0, 130, 200), (60, 180, 75), (245, 130, 48), (145, 30, 180),
                 (70, 240, 240), (240, 50, 230)]


def draw_segmentation(screenshot: str | os.PathLike | Image.Image, seg: Segmentation,
                      output: str | os.PathLike | None = None, max_height: int = 6000,
                      fill_alpha: int = 28) -> Image.Image:
    """Overlay every segment box on the screenshot and return (and optionally save) the image.

    Level-1 boxes are thick, deeper levels thinner and inset by a few pixels so nested boxes stay
    visible even when they coincide with their parent; each box carries a ``L<level>:<id>`` tag.
    """
    img = screenshot if isinstance(screenshot, Image.Image) else Image.open(screenshot)
    img = img.convert("RGBA")
    if img.height > max_height:
        img = img.crop((0, 0, img.width, max_height))
    overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    try:
        font = ImageFont.load_default(size=13)
    except TypeError:  # Pillow < 10.1 has no sized default font
        font = ImageFont.load_default()
    for s in sorted(seg.segments, key=lambda s: s.level):
        x, y, w, h = s.box
        if w <= 0 or h <= 0:
            continue
        colour = LEVEL_COLOURS[(s.level - 1) % len(LEVEL_COLOURS)]
        inset = 3 * (s.level - 1)
        width = max(1, 4 - s.level)
        box = (x + inset, y + inset, max(x + inset + 1, x + w - inset),
               max(y + inset + 1, y + h - inset))
        draw.rectangle(box, fill=colour + (fill_alpha,), outline=colour + (255,), width=width)
        label = f"L{s.level}:{s.id}"
        tb = draw.textbbox((box[0] + 2, box[1] + 1), label, font=font)
        draw.rectangle((tb[0] - 2, tb[1] - 1, tb[2] + 2, tb[3] + 1), fill=colour + (220,))
        draw.text((box[0] + 2, box[1] + 1), label, fill=(255, 255, 255, 255), font=font)
    out = Image.alpha_composite(img, overlay).convert("RGB")
    if output is not None:
        out.save(Path(output))
    return out
