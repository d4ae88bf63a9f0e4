# steadystate, the conformance runner: a static binary on an empty image,
# run as a Job in the cluster under test (fixtures/job/conform.yaml) with
# --provider existing. It needs a writable /tmp (an emptyDir).
FROM scratch
COPY steadystate /steadystate
USER 65532:65532
ENTRYPOINT ["/steadystate"]
