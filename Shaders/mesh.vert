#version 450 core
// Triangle meshes (cartoons, surfaces): a position, a normal and a color with opacity per vertex, lit as the impostors are.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec4 color;

uniform mat4 view;
uniform mat4 projection;

out vec3 vPosition;
out vec3 vNormal;
out vec4 vColor;

void main() {
    vec4 p = view * vec4(position, 1.0);
    vPosition = p.xyz;
    vNormal = mat3(view) * normal;
    vColor = color;
    gl_Position = projection * p;
}
