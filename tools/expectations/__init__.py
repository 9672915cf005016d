"""OpenVINO's measured answers per op family, each written as ONE fixture the op tests replay."""
