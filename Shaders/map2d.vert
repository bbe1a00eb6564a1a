#version 450 core
// 2D drawing in map units (x right, y down): a point p lands on pixel (p - origin) * scale.
// texcoord carries, on lines, the distance across and the half width for map2d.frag.
layout(location = 0) in vec2 position;   // map units
layout(location = 1) in vec4 color;      // straight RGBA
layout(location = 2) in vec2 texcoord;

uniform vec2 viewport;                   // output width, height in pixels
uniform vec2 origin;                     // the map point at the top left corner
uniform float scale;                     // pixels per map unit

out vec4 vColor;
out vec2 vTexcoord;

void main() {
    vec2 pixel = (position - origin) * scale;
    vec2 ndc = vec2(pixel.x / viewport.x * 2.0 - 1.0, 1.0 - pixel.y / viewport.y * 2.0);
    gl_Position = vec4(ndc, 0.0, 1.0);
    vColor = color;
    vTexcoord = texcoord;
}
