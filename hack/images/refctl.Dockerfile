# refctl, the reference controllers: a static binary on an empty image, so
# it builds with no registry reachable.
FROM scratch
COPY refctl /refctl
USER 65532:65532
ENTRYPOINT ["/refctl"]
