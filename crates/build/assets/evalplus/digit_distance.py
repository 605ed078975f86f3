def _es_digit_distance(num1, num2):
    # Mbpp/558 with the shorter number padded with zeros (EvalPlus's oracle).
    a, b = str(num1), str(num2)
    width = max(len(a), len(b))
    a, b = a.zfill(width), b.zfill(width)
    total = 0
    for x, y in zip(a, b):
        total += abs(int(x) - int(y))
    return total
