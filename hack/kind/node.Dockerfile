# The offline kind node image (hack/kind-image.sh): kind's base image steps on a
# debootstrapped Debian root filesystem, with Debian's containerd and runc and
# Kubernetes built from source. The build context is assembled by the script.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY kind/usr/local/bin/ /usr/local/bin/
COPY kind/kind/ /kind/
COPY kind/etc/ /etc/
COPY bin/ /usr/bin/
COPY cni/ /opt/cni/bin/
COPY overlay/ /
RUN chmod 755 /kind /kind/bin /kind/bin/* /usr/local/bin/* /usr/bin/kubeadm /usr/bin/kubelet /usr/bin/kubectl /usr/bin/crictl /opt/cni/bin/* \
    && find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete \
    && rm -f /lib/systemd/system/multi-user.target.wants/* \
    && rm -f /etc/systemd/system/*.wants/* \
    && rm -f /lib/systemd/system/local-fs.target.wants/* \
    && rm -f /lib/systemd/system/sockets.target.wants/*udev* \
    && rm -f /lib/systemd/system/sockets.target.wants/*initctl* \
    && rm -f /lib/systemd/system/basic.target.wants/* \
    && echo "ReadKMsg=no" >> /etc/systemd/journald.conf \
    && ln -sf /usr/lib/systemd/systemd /sbin/init \
    && ln -sf /usr/bin/containerd /usr/local/bin/containerd \
    && systemctl enable kubelet.service containerd.service undo-mount-hacks.service \
    && systemctl mask systemd-binfmt.service \
    && mkdir -p /etc/kubernetes/manifests /var/lib/kubelet \
    && ctr oci spec \
        | jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
        | jq 'del(.process.rlimits)' \
        > /etc/containerd/cri-base.json
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
