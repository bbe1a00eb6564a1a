#version 450 core
// Map shapes: flat color; on lines, coverage from the distance to the line's middle, so that
// their edges are smooth at one sample a pixel.
in vec4 vColor;
in vec2 vTexcoord;          // x: signed distance across the line, y: its half width (map units); y = 0 off lines
uniform float scale;        // pixels per map unit

out vec4 fragColor;

void main() {
    float coverage = 1.0;
    if (vTexcoord.y > 0.0) {
        coverage = clamp((vTexcoord.y - abs(vTexcoord.x)) * scale + 0.5, 0.0, 1.0);
    }
    fragColor = vec4(vColor.rgb, vColor.a * coverage);
}
