module example.com/guestbook

go 1.26
