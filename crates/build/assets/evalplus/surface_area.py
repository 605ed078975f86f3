def _es_surface_area(base_edge, height):
    # Mbpp/581 read with the height as the pyramid's perpendicular height (EvalPlus's oracle).
    import math
    slant_height = math.sqrt((base_edge / 2) ** 2 + height**2)
    base_area = base_edge**2
    lateral_area = 4 * (base_edge * slant_height) / 2
    return round(base_area + lateral_area)
