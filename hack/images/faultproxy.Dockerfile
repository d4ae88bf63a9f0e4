# faultproxy, the in-pod fault proxy sidecar: a static binary on an empty
# image, so it builds with no registry reachable.
FROM scratch
COPY faultproxy /faultproxy
USER 65532:65532
ENTRYPOINT ["/faultproxy"]
