#version 450 core
// 2D drawing in output pixels (origin top left, y down): lines, shapes, text quads.
layout(location = 0) in vec2 position;   // pixels
layout(location = 1) in vec4 color;      // straight RGBA
layout(location = 2) in vec2 texcoord;   // into the bound texture, where one is used

uniform vec2 viewport;                   // output width, height in pixels

out vec4 vColor;
out vec2 vTexcoord;

void main() {
    vec2 ndc = vec2(position.x / viewport.x * 2.0 - 1.0, 1.0 - position.y / viewport.y * 2.0);
    gl_Position = vec4(ndc, 0.0, 1.0);
    vColor = color;
    vTexcoord = texcoord;
}
