#version 450 core
// Ray-cast cylinder impostor for a whole bond: one quad that covers the cylinder from a to b as
// seen from the camera; the fragment shader finds the surface and colors each half by its atom.
// The ends inside the atoms' spheres can never be seen (the sphere is in front of them from
// every side), so the quad covers only the part between the spheres.
layout(location = 0) in vec2 corner;     // (-1,-1) .. (1,1): x across the bond, y along it
layout(location = 1) in vec4 start;      // world a, length of the bond hidden inside a's sphere
layout(location = 2) in vec4 end;        // world b, length hidden inside b's sphere
layout(location = 3) in vec4 colorA;
layout(location = 4) in vec4 colorB;
layout(location = 5) in float radius;   // the bond's radius

uniform mat4 view;
uniform mat4 projection;
#include "view.glsl"

flat out vec3 vStart;
flat out vec3 vEnd;
flat out float vRadius;
flat out vec3 vColorA;
flat out vec3 vColorB;
out vec3 vPosition;

void main() {
    vec3 a = (view * vec4(start.xyz, 1.0)).xyz;
    vec3 b = (view * vec4(end.xyz, 1.0)).xyz;
    float r = radius;
    vec3 axis = b - a;
    float len = length(axis);
    vec3 u = axis / max(len, 1e-6);
    vec3 a2 = a + u * min(start.w, 0.5 * len), b2 = b - u * min(end.w, 0.5 * len);
    vec3 middle = (a2 + b2) * 0.5;
    // Directions on the screen plane: along the projected axis and across it.
    vec3 toEye = orthographic ? vec3(0.0, 0.0, 1.0) : normalize(-middle);
    vec3 across = cross(axis, toEye);
    float acrossLength = length(across);
    across = acrossLength > 1e-6 ? across / acrossLength : vec3(1.0, 0.0, 0.0);
    vec3 along = normalize(cross(toEye, across));
    float halfLength = 0.5 * abs(dot(b2 - a2, along)) + r;
    // Pushed toward the eye by the radius so that the quad lies in front of the surface.
    vec3 position = middle + across * (corner.x * r) + along * (corner.y * halfLength) + toEye * r;
    vStart = a;
    vEnd = b;
    vRadius = r;
    vColorA = colorA.rgb;
    vColorB = colorB.rgb;
    vPosition = position;
    gl_Position = projection * vec4(position, 1.0);
}
