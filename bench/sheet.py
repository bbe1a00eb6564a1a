"""Pictures side by side for looking at: rows of (title, molshot's PNG, the peer's PNG), each
picture on white at w x h, a title over each row and one over the sheet (bench/figures.py, bench/sites.py)."""
from PIL import Image, ImageDraw


def side_by_side(rows, width, height, heading, path, quality=85, text=28):
    columns = max(len(r) - 1 for r in rows)
    sheet = Image.new("RGB", (columns * (width + 10) + 10, len(rows) * (height + text) + 40), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((10, 8), heading, fill="black")
    for k, (title, *pictures) in enumerate(rows):
        y = 30 + k * (height + text)
        draw.text((10, y + 4), title, fill="black")
        for col, picture in enumerate(pictures):
            if picture:
                im = Image.open(picture).convert("RGBA")
                bg = Image.new("RGBA", im.size, "white")
                bg.alpha_composite(im)
                sheet.paste(bg.convert("RGB").resize((width, height)), (10 + col * (width + 10), y + text))
    sheet.save(path, quality=quality)
