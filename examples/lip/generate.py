#!/usr/bin/env python3
"""Writes the bundled LIP example: short product reviews written for invar, with a sentiment label.

Run from this folder (`python3 generate.py`); the output is deterministic. Every phrase below was
written by hand for this example; a review is composed from an opener, one to three judgements about
aspects of a product and sometimes a closing remark.

  train.tsv        text <TAB> sentiment   (training data for the property classifier)
  original.tsv     text <TAB> sentiment   (the originals A with their ground truth)
  transformed.tsv  text                   (B: a simulated paraphraser's output, line-aligned with A)

The simulated paraphraser rewrites every review with other phrases of the same sentiment, except
that it tones down part of the complaints: 45% of the negative reviews come out as mild, mixed
wording. The property "sentiment" is therefore not invariant under this transformation, and
`invar lip --example` should say so (transformation bias).
"""
import random

PRODUCTS = {
    "headphones": ["sound", "battery", "ear cushions", "bluetooth connection", "noise cancelling"],
    "kettle": ["lid", "handle", "boiling time", "power cord", "water gauge"],
    "backpack": ["zipper", "straps", "laptop pocket", "fabric", "side pockets"],
    "desk lamp": ["brightness", "hinge", "switch", "colour of the light", "base"],
    "pair of running shoes": ["sole", "laces", "cushioning", "fit", "grip on wet roads"],
    "blender": ["motor", "jug", "blades", "lid seal", "speed settings"],
    "phone case": ["buttons", "grip", "edges", "camera cut-out", "colour"],
    "umbrella": ["frame", "canopy", "handle", "opening button", "cover"],
    "coffee grinder": ["burrs", "grind settings", "hopper", "noise", "cleaning brush"],
    "office chair": ["armrests", "wheels", "back support", "gas lift", "seat cushion"],
    "rice cooker": ["inner pot", "timer", "keep-warm mode", "steam vent", "manual"],
    "e-reader": ["screen", "page turn buttons", "battery", "front light", "case"],
    "garden hose": ["nozzle", "connectors", "length", "reel", "kink resistance"],
    "toaster": ["slots", "browning dial", "crumb tray", "lever", "defrost button"],
    "yoga mat": ["grip", "thickness", "smell", "carrying strap", "surface"],
}

OPENERS = {
    "positive": ["Bought this {p} last month.", "Got the {p} as a gift.", "Second {p} I have bought from this shop.",
                 "Ordered the {p} on a Monday, it came on Wednesday.", "My old {p} broke, so I tried this one.",
                 "Been using this {p} every day.", "", "", ""],
    "neutral": ["Bought this {p} last month.", "Got the {p} for my flat.", "Picked up this {p} on sale.",
                "Used the {p} for a few weeks now.", "Replaced my old {p} with this.", "", "", ""],
    "negative": ["Bought this {p} last month.", "Got the {p} for my partner.", "Ordered the {p} after reading the reviews.",
                 "Used the {p} for two weeks.", "My old {p} broke, so I tried this one.", "", "", ""],
}

JUDGEMENTS = {
    "positive": [
        "The {a} {is} excellent.", "Really happy with the {a}.", "The {a} {works} perfectly.",
        "Love the {a}, {it} {feels} solid.", "The {a} {is} better than I expected.", "Great {a}, no complaints at all.",
        "The {a} {is} superb for the price.", "Impressed by the {a}.", "The {a} {is} brilliant.",
        "Fantastic {a}.", "The {a} {does} exactly what {it} should, and {does} it well.", "Top marks for the {a}.",
        "The {a} {is} a joy to use.", "Very pleased with the {a}.", "The {a} {is} sturdy and well made.",
    ],
    "neutral": [
        "The {a} {is} okay.", "The {a} {is} fine, nothing special.", "The {a} {does} the job.",
        "The {a} {is} average.", "The {a} {is} acceptable for the price.", "The {a} could be better but {it} {works}.",
        "Not sure about the {a} yet.", "The {a} {is} decent enough.", "The {a} {is} what you would expect.",
        "The {a} {is} neither good nor bad.", "The {a} {is} alright, I suppose.", "No strong feelings about the {a}.",
        "The {a} {is} a bit basic.", "The {a} {is} so-so.", "The {a} {is} reasonable.",
    ],
    "negative": [
        "The {a} broke after a week.", "Terrible {a}.", "The {a} stopped working almost at once.",
        "Really disappointed with the {a}.", "The {a} {is} flimsy and cheap.", "The {a} {is} awful.",
        "The {a} {is} a complete waste of money.", "Hate the {a}.", "The {a} fell apart.",
        "The {a} {is} useless.", "Very poor {a}.", "The {a} {is} the worst I have owned.",
        "The {a} {is} badly made.", "The {a} failed on the second day.", "Avoid it, the {a} {is} rubbish.",
    ],
}

CLOSERS = {
    "positive": ["Would buy again.", "Highly recommended!", "Five stars.", "Worth every penny.",
                 "I would recommend it to friends.", "", "", ""],
    "neutral": ["It is fine for now.", "Three stars.", "Might keep it.", "Does what it says, more or less.",
                "Hard to say if I would buy it again.", "", "", ""],
    "negative": ["Returning it.", "Do not buy.", "One star.", "Never again.", "I want my money back.",
                 "Save your money.", "", ""],
}


PLURAL = {"ear cushions", "straps", "side pockets", "laces", "blades", "speed settings", "buttons", "edges",
          "burrs", "grind settings", "armrests", "wheels", "page turn buttons", "connectors", "slots"}


def plan(rng, product, sentiment):
    """What a review says: its product, overall sentiment and (aspect, tone) judgements in order."""
    aspects = rng.sample(PRODUCTS[product], k=rng.choice([1, 2, 2, 3]))
    judgements = [(aspect, sentiment) for aspect in aspects]
    # Some reviews mix in a remark of another tone, as real ones do.
    if rng.random() < 0.25:
        other = rng.choice([s for s in JUDGEMENTS if s != sentiment])
        judgements.insert(rng.randrange(0, len(judgements) + 1), (rng.choice(PRODUCTS[product]), other))
    return product, sentiment, judgements


def render(rng, product, sentiment, judgements):
    parts = [rng.choice(OPENERS[sentiment]).format(p=product)]
    used = set()
    for aspect, tone in judgements:
        template = rng.choice([t for t in JUDGEMENTS[tone] if t not in used])
        used.add(template)
        plural = aspect in PLURAL
        parts.append(template.format(a=aspect, **{"is": "are" if plural else "is", "works": "work" if plural else "works",
                                                  "does": "do" if plural else "does", "it": "they" if plural else "it",
                                                  "feels": "feel" if plural else "feels"}))
    parts.append(rng.choice(CLOSERS[sentiment]))
    text = " ".join(p for p in parts if p)
    return text[0].upper() + text[1:]


def dataset(rng, n, shares):
    plans = []
    for _ in range(n):
        sentiment = rng.choices(list(shares), weights=list(shares.values()))[0]
        plans.append(plan(rng, rng.choice(list(PRODUCTS)), sentiment))
    return plans


def paraphrase(rng, product, sentiment, judgements):
    """The same plan in other words; 45% of the negative reviews are toned down to mild wording."""
    if sentiment == "negative" and rng.random() < 0.45:
        sentiment = "neutral"
        judgements = [(aspect, "neutral" if tone == "negative" else tone) for aspect, tone in judgements]
    return render(rng, product, sentiment, judgements)


def main():
    rng = random.Random(20240611)
    shares = {"negative": 0.3, "neutral": 0.25, "positive": 0.45}
    train = dataset(rng, 360, shares)
    original = dataset(rng, 240, shares)
    with open("train.tsv", "w", encoding="utf-8") as out:
        out.writelines(f"{render(rng, *p)}\t{p[1]}\n" for p in train)
    texts = [render(rng, *p) for p in original]
    with open("original.tsv", "w", encoding="utf-8") as out:
        out.writelines(f"{text}\t{p[1]}\n" for text, p in zip(texts, original))
    with open("transformed.tsv", "w", encoding="utf-8") as out:
        out.writelines(f"{paraphrase(rng, *p)}\n" for p in original)


if __name__ == "__main__":
    main()
