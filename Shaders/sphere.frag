#version 450 core
#include "lighting.glsl"

flat in vec3 vCenter;
flat in float vRadius;
flat in vec3 vColor;
in vec3 vPosition;

out vec4 fragColor;

void main() {
    vec3 origin = orthographic ? vec3(vPosition.xy, 0.0) : vec3(0.0);
    vec3 direction = orthographic ? vec3(0.0, 0.0, -1.0) : normalize(vPosition);
    vec3 oc = origin - vCenter;
    float b = dot(oc, direction);
    float c = dot(oc, oc) - vRadius * vRadius;
    float h = b * b - c;
    if (h < 0.0) discard;
    vec3 hit = origin + (-b - sqrt(h)) * direction;
    gl_FragDepth = windowDepth(hit);
    fragColor = vec4(shade(vColor, (hit - vCenter) / vRadius, hit), 1.0);
}
