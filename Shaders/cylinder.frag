#version 450 core
#include "lighting.glsl"

in vec3 vNormal;
in vec3 vPosition;
in vec3 vColor;

out vec4 fragColor;

void main() {
    fragColor = vec4(shade(vColor, vNormal, vPosition), 1.0);
}
