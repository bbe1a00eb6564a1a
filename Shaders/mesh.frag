#version 450 core
#include "lighting.glsl"
in vec3 vPosition;
in vec3 vNormal;
in vec4 vColor;
out vec4 fragColor;

void main() {
    vec3 n = normalize(vNormal);
    // Both faces are drawn (ribbons are thin): light the one seen.
    if (!gl_FrontFacing) n = -n;
    fragColor = vec4(shade(vColor.rgb, n, vPosition), vColor.a);
}
