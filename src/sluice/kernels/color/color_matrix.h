#pragma once
// The per-sample parameters of the colour operators, as DALI derives them from the arguments:
// the multiply-add of brightness / contrast and the 3x3 matrices of hsv and color_twist, which
// work in the YIQ colour space (hue: a rotation of the I and Q axes, saturation: their scale,
// value / brightness: a scale of all three). Host code.

#include "sluice/kernels/color/color_types.h"

namespace sluice::kernels::color {

// out = shift * out_range + brightness * (center + contrast * (in - center)), as in * mul + add.
void set_brightness_contrast(ColorSample& s, float brightness, float shift, float contrast,
                             float center, float out_range);

// hsv: YIQ->RGB * hue * saturation * value * RGB->YIQ, no offset.
void set_hsv(ColorSample& s, float hue_degrees, float saturation, float value);

// color_twist (and hue, saturation): brightness * contrast * YIQ->RGB * hue * saturation *
// RGB->YIQ, offset (half_range - half_range * contrast) * brightness on every channel.
void set_color_twist(ColorSample& s, float hue_degrees, float saturation, float brightness,
                     float contrast, float half_range);

}  // namespace sluice::kernels::color
